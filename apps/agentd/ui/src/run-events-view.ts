/**
 * Draws a RunModel (run-model.ts) into a container: usage, pending permission prompts with their
 * buttons, the plan as a checklist, and the run's timeline (text, thoughts, tool call rows, diffs,
 * permission requests and decisions, turn ends). Agent text only ever goes in as `textContent`,
 * made inert first (inert-text.ts: bidi and control characters shown, never applied). Rows a
 * reader opened stay open across redraws; nothing is redrawn when nothing changed.
 */
import { inert } from '../../src/cli/inert-text.js';
import type { PlanEntry, ToolCallView } from './run-events.js';
import type { Block, Prompt, RunModel } from './run-model.js';
import { usageWords } from './run-model.js';

export interface EventsViewOptions {
  /** Whether this peer may answer prompts (buttons shown). */
  canApprove: boolean;
  /** Requests answered from this page whose answer is still on its way: their buttons are disabled. */
  answering: ReadonlySet<string>;
}

const drawn = new WeakMap<HTMLElement, string>();

function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  className?: string,
  text?: string,
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (className !== undefined) node.className = className;
  if (text !== undefined) node.textContent = inert(text);
  return node;
}

/** Returns whether it drew (false when the model and options were already drawn). */
export function renderRunEvents(root: HTMLElement, model: RunModel, options: EventsViewOptions): boolean {
  const signature = JSON.stringify([model, options.canApprove, [...options.answering]]);
  if (drawn.get(root) === signature) return false;
  drawn.set(root, signature);
  // A reader's open or closed rows stay as they were.
  const open = new Map<string, boolean>();
  for (const details of root.querySelectorAll<HTMLDetailsElement>('details[data-key]'))
    open.set(details.dataset.key as string, details.open);
  const parts: HTMLElement[] = [];
  if (model.usage !== undefined) {
    const usage = el('p', 'usage', `usage: ${usageWords(model.usage)}`);
    usage.dataset.runUsage = '';
    parts.push(usage);
  }
  if (model.prompts.length > 0) parts.push(promptsOf(model.prompts, options));
  if (model.plan !== undefined && model.plan.length > 0) parts.push(planOf(model.plan));
  if (model.blocks.length > 0) {
    const list = el('ol', 'timeline');
    list.setAttribute('aria-label', 'Run events');
    for (const block of model.blocks) {
      const item = el('li', 'timeline-item');
      item.append(blockOf(block, open));
      list.append(item);
    }
    parts.push(list);
  }
  root.replaceChildren(...parts);
  root.hidden = parts.length === 0;
  return true;
}

function promptsOf(prompts: readonly Prompt[], options: EventsViewOptions): HTMLElement {
  const section = el('section', 'prompts');
  section.setAttribute('aria-label', 'Permission requests');
  for (const prompt of prompts) {
    const box = el('div', 'prompt');
    box.dataset.requestId = prompt.requestId;
    box.setAttribute('role', 'group');
    box.setAttribute('aria-label', `Permission: ${inert(prompt.toolCall.title)}`);
    box.append(el('p', 'ask', `The agent asks to run: ${prompt.toolCall.title}`), toolFacts(prompt.toolCall));
    if (options.canApprove) {
      const buttons = el('div', 'row');
      const busy = options.answering.has(prompt.requestId);
      const button = (label: string, answer: { optionId?: string; decision?: 'deny' }) => {
        const b = el('button', label === 'Deny' ? 'deny' : undefined, label);
        b.type = 'button';
        b.dataset.action = 'approve';
        b.dataset.answer = label.toLowerCase();
        b.dataset.requestId = prompt.requestId;
        if (answer.optionId !== undefined) b.dataset.optionId = answer.optionId;
        if (answer.decision !== undefined) b.dataset.decision = answer.decision;
        b.disabled = busy;
        buttons.append(b);
      };
      if (prompt.approve !== undefined) button('Approve', { optionId: prompt.approve });
      if (prompt.always !== undefined) button('Always', { optionId: prompt.always });
      button('Deny', prompt.deny === undefined ? { decision: 'deny' } : { optionId: prompt.deny });
      box.append(buttons);
    }
    section.append(box);
  }
  return section;
}

const PLAN_MARKS: Record<PlanEntry['status'], string> = { pending: '○', in_progress: '◐', completed: '✓' };

function planOf(entries: readonly PlanEntry[]): HTMLElement {
  const section = el('section', 'plan');
  section.append(el('h3', undefined, 'Plan'));
  const list = el('ul', 'checklist');
  for (const entry of entries) {
    const item = el('li');
    item.dataset.status = entry.status;
    const mark = el('span', 'mark', PLAN_MARKS[entry.status]);
    mark.setAttribute('aria-hidden', 'true');
    const words = el('span', 'content', entry.content);
    item.setAttribute('aria-label', `${inert(entry.content)}: ${entry.status.replace('_', ' ')}`);
    item.append(mark, words);
    list.append(item);
  }
  section.append(list);
  return section;
}

/** Input, locations and output of a tool call, as a definition list (only the parts it has). */
function toolFacts(call: ToolCallView): HTMLElement {
  const facts = el('dl', 'facts');
  const fact = (term: string, value: string | undefined, pre = false) => {
    if (value === undefined || value === '') return;
    facts.append(el('dt', undefined, term), el(pre ? 'pre' : 'dd', pre ? 'value' : undefined, value));
  };
  fact('kind', call.name === undefined ? call.kind : `${call.kind} (${call.name})`);
  fact('input', call.input, true);
  fact('locations', call.locations.length > 0 ? call.locations.join('\n') : undefined, true);
  fact('output', call.output, true);
  return facts;
}

function collapsible(key: string, open: Map<string, boolean>, className: string): HTMLDetailsElement {
  const details = el('details', className);
  details.dataset.key = key;
  details.open = open.get(key) ?? false;
  return details;
}

function blockOf(block: Block, open: Map<string, boolean>): HTMLElement {
  switch (block.kind) {
    case 'text':
      return el('div', block.stream === 'stderr' ? 'message stderr' : 'message', block.text);
    case 'thought': {
      const details = collapsible(block.key, open, 'thought');
      details.append(el('summary', undefined, 'Thought'), el('div', 'text', block.text));
      return details;
    }
    case 'tool': {
      const details = collapsible(block.key, open, 'tool');
      details.dataset.toolCallId = block.call.id;
      details.dataset.status = block.call.status;
      const summary = el('summary');
      summary.append(
        el('span', 'status', block.call.status.replace('_', ' ')),
        el('span', 'title', block.call.title),
        el('span', 'kind', block.call.kind),
      );
      details.append(summary, toolFacts(block.call));
      return details;
    }
    case 'diff':
      return diffOf(block);
    case 'asked': {
      const line = el('div', 'permission', `permission asked: ${block.title}`);
      line.dataset.requestId = block.requestId;
      return line;
    }
    case 'decided': {
      const line = el('div', 'decision', `${block.title}: ${block.words}`);
      line.dataset.requestId = block.requestId;
      return line;
    }
    case 'turn':
      return el('div', 'turn', `turn ${block.turn} ended (${block.stopReason})`);
  }
}

function diffOf(block: Extract<Block, { kind: 'diff' }>): HTMLElement {
  const figure = el('figure', 'diff');
  figure.dataset.path = block.path;
  figure.append(el('figcaption', undefined, block.path));
  const pre = el('pre');
  for (const line of block.lines) {
    const row = el(
      'span',
      line.op === '+' ? 'add' : line.op === '-' ? 'del' : 'ctx',
      `${line.op} ${line.text}`,
    );
    pre.append(row);
  }
  figure.append(pre);
  return figure;
}

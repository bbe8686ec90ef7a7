/**
 * What a run's view shows, as data: a pure function of the run's status and its events, so it is
 * tested without a browser and the DOM side (run-events-view.ts) only draws it. Message chunks run
 * together into text, consecutive thoughts into one block, each tool call is one row at its first
 * sight holding its latest state, identical diffs show once, the plan is the latest one, usage the
 * newest totals, and the prompts are the status's pending permission requests not yet decided.
 */
import type { Json } from './connection.js';
import { type DiffLine, lineDiff } from './line-diff.js';
import {
  type OptionKind,
  type PendingPermission,
  type PermissionDecision,
  type PlanEntry,
  pendingOf,
  type RunEventEntry,
  type RunUsage,
  type ToolCallView,
  usageOf,
} from './run-events.js';

export type Block =
  | { kind: 'text'; key: string; stream: 'stdout' | 'stderr'; text: string }
  | { kind: 'thought'; key: string; text: string }
  | { kind: 'tool'; key: string; call: ToolCallView }
  | { kind: 'diff'; key: string; path: string; lines: DiffLine[] }
  | { kind: 'asked'; key: string; requestId: string; title: string }
  | { kind: 'decided'; key: string; requestId: string; title: string; words: string }
  | { kind: 'turn'; key: string; turn: number; stopReason: string };

/** A pending prompt's buttons: the option each answers with (`deny` falls back to a plain deny). */
export interface Prompt {
  requestId: string;
  toolCall: ToolCallView;
  since?: string;
  approve?: string;
  always?: string;
  deny?: string;
}

export interface RunModel {
  blocks: Block[];
  plan?: PlanEntry[];
  usage?: RunUsage;
  prompts: Prompt[];
}

/** Plain and protocol runs' messages are their output lines, which the output pane already shows. */
const messagesShown = (status: Json) => status.mode === 'acp' || status.mode === 'claude';

const KIND_WORDS: Record<OptionKind, string> = {
  allow_once: 'allowed once',
  allow_always: 'allowed always',
  reject_once: 'denied',
  reject_always: 'denied always',
};

/** How a decision reads: `allowed once by operator`, `denied by timeout`, `cancelled`. */
export function decisionWords(decision: PermissionDecision): string {
  if (decision.outcome === 'cancelled')
    return decision.by === 'cancelled' ? 'cancelled' : `cancelled by ${decision.by}`;
  if (decision.by === 'timeout') return `${KIND_WORDS[decision.kind]} (timed out)`;
  return `${KIND_WORDS[decision.kind]} by ${decision.by}`;
}

const optionOf = (p: PendingPermission, ...kinds: OptionKind[]) =>
  kinds.map((kind) => p.options.find((o) => o.kind === kind)).find((o) => o !== undefined)?.optionId;

function promptOf(p: PendingPermission): Prompt {
  const prompt: Prompt = { requestId: p.requestId, toolCall: p.toolCall };
  if (p.since !== undefined) prompt.since = p.since;
  const approve = optionOf(p, 'allow_once', 'allow_always');
  const always = optionOf(p, 'allow_always');
  const deny = optionOf(p, 'reject_once', 'reject_always');
  if (approve !== undefined) prompt.approve = approve;
  if (always !== undefined && always !== approve) prompt.always = always;
  if (deny !== undefined) prompt.deny = deny;
  return prompt;
}

export function runModel(status: Json, entries: readonly RunEventEntry[]): RunModel {
  const blocks: Block[] = [];
  const tools = new Map<string, Extract<Block, { kind: 'tool' }>>();
  const titles = new Map<string, string>();
  const decided = new Set<string>();
  const diffs = new Set<string>();
  const withMessages = messagesShown(status);
  let plan: PlanEntry[] | undefined;
  let usage: RunUsage | undefined;
  entries.forEach(({ event, seq }, index) => {
    const last = blocks[blocks.length - 1];
    // The daemon's seq names an event for good; an index only until older events are dropped.
    const key = seq === undefined ? `e${index}` : `s${seq}`;
    switch (event.type) {
      case 'message': {
        if (!withMessages) return;
        const stream = event.stream ?? 'stdout';
        if (last?.kind === 'text' && last.stream === stream) last.text += event.text;
        else blocks.push({ kind: 'text', key, stream, text: event.text });
        return;
      }
      case 'thought':
        if (last?.kind === 'thought') last.text += event.text;
        else blocks.push({ kind: 'thought', key, text: event.text });
        return;
      case 'tool_call': {
        const known = tools.get(event.toolCall.id);
        titles.set(event.toolCall.id, event.toolCall.title);
        if (known !== undefined) known.call = { ...known.call, ...event.toolCall };
        else {
          const block = { kind: 'tool' as const, key, call: event.toolCall };
          tools.set(event.toolCall.id, block);
          blocks.push(block);
        }
        return;
      }
      case 'diff': {
        const id = JSON.stringify([event.path, event.oldText ?? null, event.newText]);
        if (diffs.has(id)) return;
        diffs.add(id);
        blocks.push({ kind: 'diff', key, path: event.path, lines: lineDiff(event.oldText, event.newText) });
        return;
      }
      case 'plan':
        plan = event.entries;
        return;
      case 'usage':
        usage = event.usage;
        return;
      case 'permission_request':
        titles.set(`request:${event.requestId}`, event.toolCall.title);
        blocks.push({ kind: 'asked', key, requestId: event.requestId, title: event.toolCall.title });
        return;
      case 'permission_decision':
        decided.add(event.requestId);
        blocks.push({
          kind: 'decided',
          key,
          requestId: event.requestId,
          title: titles.get(`request:${event.requestId}`) ?? event.requestId,
          words: decisionWords(event.decision),
        });
        return;
      case 'turn_end':
        // Agents number tool calls per turn: the next turn's `call-1` is another call.
        tools.clear();
        blocks.push({ kind: 'turn', key, turn: event.turn, stopReason: event.stopReason });
        return;
    }
  });
  const pending = Array.isArray(status.pendingPermissions)
    ? status.pendingPermissions.flatMap((p) => {
        const checked = pendingOf(p);
        return checked === undefined || decided.has(checked.requestId) ? [] : [promptOf(checked)];
      })
    : [];
  const model: RunModel = { blocks, prompts: pending };
  if (plan !== undefined) model.plan = plan;
  // The status's usage is the run's own total; events only stand in where a status has none.
  const reported = usageOf(status.usage) ?? usage;
  if (reported !== undefined) model.usage = reported;
  return model;
}

/** `1,234 in · 56 out · 7 cached · $0.0123`: the usage as one line. */
export function usageWords(usage: RunUsage): string {
  const n = (v: number) => v.toLocaleString('en-US');
  const parts = [`${n(usage.inputTokens)} in`, `${n(usage.outputTokens)} out`];
  const cached = usage.cacheReadTokens + usage.cacheWriteTokens;
  if (cached > 0) parts.push(`${n(cached)} cached`);
  if (usage.costUsd !== undefined) parts.push(`$${usage.costUsd.toFixed(4)}`);
  return parts.join(' · ');
}

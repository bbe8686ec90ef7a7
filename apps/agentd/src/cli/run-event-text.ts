/**
 * A run's events (supervisor/run-event.ts) as a person reads them on a terminal: one line per
 * event, the agent's message as streamed text. Every string an agent provided (titles, inputs,
 * paths, plan entries, option names, message text) is made inert here (inert-text.ts): an agent
 * must not be able to move the cursor or forge a line of agentd's own.
 */
import { isJsonObject, type JsonObject } from '@agentd/rpc-frame';
import { inert } from './inert-text.js';
import { tint } from './term-style.js';

/** What one event shows: whole lines, or a piece of the agent's message to print as it is. */
export type Rendered = { kind: 'line'; text: string } | { kind: 'chunk'; text: string };

/** Characters of an agent's text shown on one event line (input summaries, thoughts, outputs). */
const LINE_CHARS = 160;

const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/** One line of agent text: inert, newlines folded, cut. */
function oneLine(text: string, colours: boolean, max = LINE_CHARS): string {
  const folded = text.replace(/\s*\n\s*/g, ' ⏎ ').trim();
  return inert(folded.length > max ? `${folded.slice(0, max)}…` : folded, { colours });
}

const PLAN_MARK: Record<string, string> = { completed: '[x]', in_progress: '[~]', pending: '[ ]' };

export class RunEventText {
  /** The last status shown per tool call: an update that changes nothing visible is not repeated. */
  readonly #toolStatus = new Map<string, string>();
  #usage: JsonObject | undefined;
  readonly #colour: boolean;
  readonly #agentColours: boolean;

  constructor(colour: boolean, agentColours: boolean) {
    this.#colour = colour;
    this.#agentColours = agentColours;
  }

  #text(text: string, max?: number): string {
    return oneLine(text, this.#agentColours, max);
  }

  /** The lines (or chunk) for `event`; `handle` names the run in the approve hint. */
  render(event: JsonObject, handle: string | undefined): Rendered[] {
    switch (event.type) {
      case 'message': {
        const text = str(event.text) ?? '';
        return text === '' ? [] : [{ kind: 'chunk', text: inert(text, { colours: this.#agentColours }) }];
      }
      case 'thought':
        return [this.#line('dim', `~ ${this.#text(str(event.text) ?? '')}`)];
      case 'tool_call':
        return this.#toolCall(isJsonObject(event.toolCall) ? event.toolCall : {});
      case 'plan':
        return this.#plan(Array.isArray(event.entries) ? event.entries : []);
      case 'diff':
        return [this.#line('cyan', `± diff ${this.#text(str(event.path) ?? '?')}${diffSize(event)}`)];
      case 'permission_request':
        return this.#permission(isJsonObject(event.request) ? event.request : {}, handle);
      case 'permission_decision':
        return [this.#decision(event)];
      case 'usage':
        this.#usage = isJsonObject(event.usage) ? event.usage : undefined;
        return [];
      case 'turn_end':
        return [
          this.#line(
            'dim',
            `· turn ${String(event.turn)} ended (${this.#text(String(event.stopReason), 40)})${usageText(this.#usage)}`,
          ),
        ];
      default:
        return [];
    }
  }

  #line(colour: 'dim' | 'cyan' | 'yellow' | 'green' | 'red', text: string): Rendered {
    return { kind: 'line', text: tint(this.#colour, colour, text) };
  }

  #toolCall(call: JsonObject): Rendered[] {
    const id = str(call.id) ?? '';
    const status = str(call.status) ?? 'pending';
    if (this.#toolStatus.get(id) === status) return [];
    this.#toolStatus.set(id, status);
    const title = this.#text(str(call.title) ?? str(call.name) ?? 'tool');
    const kind = str(call.kind) === undefined ? '' : ` (${this.#text(String(call.kind), 20)})`;
    const output =
      status === 'completed' || status === 'failed'
        ? str(call.output) === undefined || call.output === ''
          ? ''
          : `: ${this.#text(String(call.output), 80)}`
        : '';
    const colour = status === 'failed' ? 'red' : status === 'completed' ? 'green' : 'cyan';
    return [this.#line(colour, `▸ tool ${title}${kind} … ${status}${output}`)];
  }

  #plan(entries: unknown[]): Rendered[] {
    const lines: Rendered[] = [this.#line('cyan', 'plan:')];
    for (const entry of entries.filter(isJsonObject)) {
      const mark = PLAN_MARK[String(entry.status)] ?? '[ ]';
      lines.push({ kind: 'line', text: `  ${mark} ${this.#text(str(entry.content) ?? '')}` });
    }
    return lines;
  }

  #permission(request: JsonObject, handle: string | undefined): Rendered[] {
    const call = isJsonObject(request.toolCall) ? request.toolCall : {};
    const requestId = this.#text(str(request.requestId) ?? '?', 80);
    const where =
      Array.isArray(call.locations) && call.locations.length > 0
        ? ` ${this.#text(call.locations.map(String).join(', '), 80)}`
        : '';
    const title = this.#text(str(call.title) ?? 'tool');
    const hint = `agentd approve ${handle ?? 'RUN'} ${requestId}`;
    const lines = [
      this.#line('yellow', `? permission: ${title}${title.includes(where.trim()) ? '' : where} — ${hint}`),
    ];
    const options = Array.isArray(request.options) ? request.options.filter(isJsonObject) : [];
    if (options.length > 0) {
      const names = options.map(
        (o) => `${this.#text(String(o.name), 40)} [${this.#text(String(o.optionId), 40)}]`,
      );
      lines.push(
        this.#line('dim', `  options: ${names.join(', ')} (--deny rejects, --always allows always)`),
      );
    }
    return lines;
  }

  #decision(event: JsonObject): Rendered {
    const decision = isJsonObject(event.decision) ? event.decision : {};
    const requestId = this.#text(str(event.requestId) ?? '?', 80);
    const by = this.#text(String(decision.by ?? '?'), 20);
    if (decision.outcome !== 'selected')
      return this.#line('red', `✗ permission ${requestId} cancelled (${by})`);
    const kind = String(decision.kind ?? '');
    const allowed = kind.startsWith('allow');
    return this.#line(
      allowed ? 'green' : 'red',
      `${allowed ? '✓' : '✗'} permission ${requestId}: ${this.#text(kind, 20)} (by ${by})`,
    );
  }
}

function diffSize(event: JsonObject): string {
  const lines = (text: unknown) => (typeof text === 'string' && text !== '' ? text.split('\n').length : 0);
  return ` (+${lines(event.newText)} −${lines(event.oldText)} lines)`;
}

/** ` · tokens in 1200 out 80 · $0.0123` from the last usage event, or nothing. */
function usageText(usage: JsonObject | undefined): string {
  if (usage === undefined) return '';
  const n = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : 0);
  const cache = n(usage.cacheReadTokens) + n(usage.cacheWriteTokens);
  const tokens = ` · tokens in ${n(usage.inputTokens)} out ${n(usage.outputTokens)}${cache > 0 ? ` cache ${cache}` : ''}`;
  const cost = typeof usage.costUsd === 'number' ? ` · $${usage.costUsd.toFixed(4)}` : '';
  return `${tokens}${cost}`;
}

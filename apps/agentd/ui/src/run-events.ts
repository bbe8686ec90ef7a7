/**
 * The run event model as the page reads it off the wire (a run's status `events`, a streamed
 * `run_event` log notification). Wire JSON is untrusted: each event is checked and normalised
 * here, and anything malformed is dropped rather than shown half-understood. The shapes mirror
 * src/supervisor/run-event.ts (not imported: the page's types build without Node's).
 */
import type { Json } from './connection.js';

export type ToolCallStatus = 'pending' | 'in_progress' | 'completed' | 'failed';

export interface ToolCallView {
  id: string;
  title: string;
  kind: string;
  status: ToolCallStatus;
  name?: string;
  input?: string;
  locations: string[];
  output?: string;
}

export interface PlanEntry {
  content: string;
  status: 'pending' | 'in_progress' | 'completed';
  priority?: string;
}

export type OptionKind = 'allow_once' | 'allow_always' | 'reject_once' | 'reject_always';

export interface PermissionOption {
  optionId: string;
  name: string;
  kind: OptionKind;
}

export type PermissionDecision =
  | { outcome: 'selected'; optionId: string; kind: OptionKind; by: string }
  | { outcome: 'cancelled'; by: string };

export interface RunUsage {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  costUsd?: number;
}

export type RunEvent =
  | { type: 'message'; text: string; stream?: 'stdout' | 'stderr' }
  | { type: 'thought'; text: string }
  | { type: 'tool_call'; toolCall: ToolCallView }
  | { type: 'plan'; entries: PlanEntry[] }
  | { type: 'diff'; path: string; oldText?: string; newText: string }
  | { type: 'permission_request'; requestId: string; toolCall: ToolCallView; options: PermissionOption[] }
  | { type: 'permission_decision'; requestId: string; decision: PermissionDecision }
  | { type: 'usage'; usage: RunUsage }
  | { type: 'turn_end'; turn: number; stopReason: string };

/** One event as kept: the daemon's sequence number and time when it gave them. */
export interface RunEventEntry {
  seq?: number;
  at?: string;
  event: RunEvent;
}

/** A permission request waiting for an answer, as the run's status lists it. */
export interface PendingPermission {
  requestId: string;
  toolCall: ToolCallView;
  options: PermissionOption[];
  since?: string;
}

const isObj = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
const oneOf = <T extends string>(v: unknown, values: readonly T[], fallback: T): T =>
  values.includes(v as T) ? (v as T) : fallback;

const TOOL_STATUSES = ['pending', 'in_progress', 'completed', 'failed'] as const;
const PLAN_STATUSES = ['pending', 'in_progress', 'completed'] as const;
const OPTION_KINDS = ['allow_once', 'allow_always', 'reject_once', 'reject_always'] as const;

function toolCallOf(v: unknown): ToolCallView | undefined {
  if (!isObj(v)) return undefined;
  const id = str(v.id) ?? str(v.toolCallId);
  if (id === undefined) return undefined;
  const view: ToolCallView = {
    id,
    title: str(v.title) ?? id,
    kind: str(v.kind) ?? 'other',
    status: oneOf(v.status, TOOL_STATUSES, 'pending'),
    locations: Array.isArray(v.locations)
      ? v.locations.flatMap((l) => {
          const path = isObj(l) ? str(l.path) : str(l);
          return path === undefined ? [] : [path];
        })
      : [],
  };
  const name = str(v.name);
  const input = str(v.input);
  const output = str(v.output);
  if (name !== undefined) view.name = name;
  if (input !== undefined) view.input = input;
  if (output !== undefined) view.output = output;
  return view;
}

function optionsOf(v: unknown): PermissionOption[] {
  if (!Array.isArray(v)) return [];
  return v.flatMap((o) => {
    const optionId = isObj(o) ? str(o.optionId) : undefined;
    if (!isObj(o) || optionId === undefined || !OPTION_KINDS.includes(o.kind as OptionKind)) return [];
    return [{ optionId, name: str(o.name) ?? optionId, kind: o.kind as OptionKind }];
  });
}

function decisionOf(v: unknown): PermissionDecision | undefined {
  if (!isObj(v)) return undefined;
  const by = str(v.by) ?? 'unknown';
  if (v.outcome === 'cancelled') return { outcome: 'cancelled', by };
  const optionId = str(v.optionId);
  if (v.outcome !== 'selected' || optionId === undefined) return undefined;
  return { outcome: 'selected', optionId, kind: oneOf(v.kind, OPTION_KINDS, 'reject_once'), by };
}

export function usageOf(v: unknown): RunUsage | undefined {
  if (!isObj(v)) return undefined;
  const usage: RunUsage = {
    inputTokens: num(v.inputTokens),
    outputTokens: num(v.outputTokens),
    cacheReadTokens: num(v.cacheReadTokens),
    cacheWriteTokens: num(v.cacheWriteTokens),
  };
  if (typeof v.costUsd === 'number' && Number.isFinite(v.costUsd)) usage.costUsd = v.costUsd;
  return usage;
}

/** One wire event, checked; undefined when it is not one the page understands. */
export function runEventOf(v: unknown): RunEvent | undefined {
  if (!isObj(v)) return undefined;
  switch (v.type) {
    case 'message': {
      const text = str(v.text);
      if (text === undefined) return undefined;
      const stream = v.stream === 'stderr' || v.stream === 'stdout' ? v.stream : undefined;
      return stream === undefined ? { type: 'message', text } : { type: 'message', text, stream };
    }
    case 'thought': {
      const text = str(v.text);
      return text === undefined ? undefined : { type: 'thought', text };
    }
    case 'tool_call': {
      const toolCall = toolCallOf(v.toolCall);
      return toolCall === undefined ? undefined : { type: 'tool_call', toolCall };
    }
    case 'plan':
      if (!Array.isArray(v.entries)) return undefined;
      return {
        type: 'plan',
        entries: v.entries.flatMap((e) => {
          const content = isObj(e) ? str(e.content) : undefined;
          if (!isObj(e) || content === undefined) return [];
          const entry: PlanEntry = { content, status: oneOf(e.status, PLAN_STATUSES, 'pending') };
          const priority = str(e.priority);
          if (priority !== undefined) entry.priority = priority;
          return [entry];
        }),
      };
    case 'diff': {
      const path = str(v.path);
      const newText = str(v.newText);
      if (path === undefined || newText === undefined) return undefined;
      const oldText = str(v.oldText);
      return oldText === undefined
        ? { type: 'diff', path, newText }
        : { type: 'diff', path, oldText, newText };
    }
    case 'permission_request': {
      const pending = pendingOf(v.request);
      return pending === undefined ? undefined : { type: 'permission_request', ...withoutSince(pending) };
    }
    case 'permission_decision': {
      const requestId = str(v.requestId);
      const decision = decisionOf(v.decision);
      if (requestId === undefined || decision === undefined) return undefined;
      return { type: 'permission_decision', requestId, decision };
    }
    case 'usage': {
      const usage = usageOf(v.usage);
      return usage === undefined ? undefined : { type: 'usage', usage };
    }
    case 'turn_end':
      return { type: 'turn_end', turn: num(v.turn), stopReason: str(v.stopReason) ?? 'end_turn' };
    default:
      return undefined;
  }
}

function withoutSince(p: PendingPermission): Omit<PendingPermission, 'since'> {
  return { requestId: p.requestId, toolCall: p.toolCall, options: p.options };
}

export function pendingOf(v: unknown): PendingPermission | undefined {
  if (!isObj(v)) return undefined;
  const requestId = str(v.requestId);
  const toolCall = toolCallOf(v.toolCall);
  if (requestId === undefined || toolCall === undefined) return undefined;
  const pending: PendingPermission = { requestId, toolCall, options: optionsOf(v.options) };
  const since = str(v.since);
  if (since !== undefined) pending.since = since;
  return pending;
}

/**
 * One kept event: `{seq, at, type, …}` (the event's fields beside its place), or the same with
 * the event under `event`/`run` (a notification's `data.run`).
 */
export function entryOf(v: unknown): RunEventEntry | undefined {
  if (!isObj(v)) return undefined;
  const inner = isObj(v.event) ? v.event : isObj(v.run) ? v.run : v;
  const event = runEventOf(inner);
  if (event === undefined) return undefined;
  const entry: RunEventEntry = { event };
  const seq = typeof v.seq === 'number' ? v.seq : typeof inner.seq === 'number' ? inner.seq : undefined;
  const at = str(v.at) ?? str(inner.at);
  if (seq !== undefined && Number.isFinite(seq)) entry.seq = seq;
  if (at !== undefined) entry.at = at;
  return entry;
}

/** A status's `events`, checked; undefined when the status carries none (daemons before the field). */
export function entriesOf(status: Json): RunEventEntry[] | undefined {
  if (!Array.isArray(status.events)) return undefined;
  return status.events.flatMap((e) => {
    const entry = entryOf(e);
    return entry === undefined ? [] : [entry];
  });
}

/** The run event a streamed `notifications/message` carries (`data.event === 'run_event'`), if any. */
export function notifiedEntry(notification: Json): RunEventEntry | undefined {
  if (notification.method !== 'notifications/message') return undefined;
  const data = isObj(notification.params) ? notification.params.data : undefined;
  if (!isObj(data) || data.event !== 'run_event') return undefined;
  return entryOf(data);
}

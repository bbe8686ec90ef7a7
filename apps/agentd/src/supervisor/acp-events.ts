/**
 * ACP `session/update` notifications mapped onto the run event model. The agent's frames are
 * untrusted: every field is read defensively, and every text that reaches an event is bounded.
 */
import {
  isPermissionOptionKind,
  isToolCallStatus,
  isToolKind,
  type PermissionOption,
  type PermissionOptionKind,
  type PermissionRequest,
  type PlanEntry,
  type RunEvent,
  type ToolCallView,
} from './run-event.js';

/** Characters kept of a tool call's input or output summary. */
const SUMMARY_CHARS = 2000;
/** Characters kept of each side of a diff. */
const DIFF_CHARS = 16 * 1024;
/** Tool calls remembered per run (updates are partial; the view is the merge). The oldest goes first. */
const MAX_TRACKED_TOOL_CALLS = 500;

const PLAN_STATUSES = new Set<PlanEntry['status']>(['pending', 'in_progress', 'completed']);
const PLAN_PRIORITIES = new Set<NonNullable<PlanEntry['priority']>>(['high', 'medium', 'low']);

type Obj = Record<string, unknown>;

function isObj(value: unknown): value is Obj {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function bounded(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/** A bounded, readable summary of any value (strings as they are, the rest as JSON). */
function summarize(value: unknown, max = SUMMARY_CHARS): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return bounded(value, max);
  try {
    return bounded(JSON.stringify(value) ?? String(value), max);
  } catch {
    return undefined;
  }
}

/** The text of one ACP content block (text, or a placeholder naming what it is). */
function blockText(block: unknown): string | undefined {
  if (!isObj(block)) return undefined;
  if (block.type === 'text') return str(block.text);
  if (block.type === 'resource_link') return `[${str(block.name) ?? str(block.uri) ?? 'resource'}]`;
  if (typeof block.type === 'string') return `[${block.type}]`;
  return undefined;
}

/** What the run keeps of the agent's tool calls: the merged view of each, newest kept. */
export class ToolCalls {
  private readonly views = new Map<string, ToolCallView>();

  /** Merges a `tool_call` or `tool_call_update` (or a permission request's tool call) into its view. */
  merge(update: Obj, store = true): ToolCallView | undefined {
    const id = str(update.toolCallId);
    if (id === undefined) return undefined;
    const known = this.views.get(id);
    const view: ToolCallView = known ? { ...known } : { id, title: '', kind: 'other', status: 'pending' };
    const title = str(update.title);
    if (title !== undefined) view.title = bounded(title, SUMMARY_CHARS);
    if (isToolKind(update.kind)) view.kind = update.kind;
    if (isToolCallStatus(update.status)) view.status = update.status;
    const name = str(update.name);
    if (name !== undefined) view.name = bounded(name, 200);
    const input = summarize(update.rawInput);
    if (input !== undefined) view.input = input;
    if (Array.isArray(update.locations)) {
      view.locations = update.locations
        .map((location) => (isObj(location) ? str(location.path) : undefined))
        .filter((path): path is string => path !== undefined)
        .slice(0, 50)
        .map((path) => bounded(path, 1000));
    }
    const output = outputSummary(update.content) ?? summarize(update.rawOutput);
    if (output !== undefined) view.output = output;
    if (view.title === '') view.title = view.name ?? id;
    if (store) this.remember(id, view);
    return view;
  }

  private remember(id: string, view: ToolCallView): void {
    this.views.delete(id);
    this.views.set(id, view);
    if (this.views.size <= MAX_TRACKED_TOOL_CALLS) return;
    const oldest = this.views.keys().next().value;
    if (oldest !== undefined) this.views.delete(oldest);
  }
}

/** The text parts of a tool call's content, bounded; diffs and terminals are named, not inlined. */
function outputSummary(content: unknown): string | undefined {
  if (!Array.isArray(content) || content.length === 0) return undefined;
  const parts: string[] = [];
  for (const item of content) {
    if (!isObj(item)) continue;
    if (item.type === 'content') parts.push(blockText(item.content) ?? '');
    else if (item.type === 'diff') parts.push(`[diff ${str(item.path) ?? ''}]`);
    else if (item.type === 'terminal') parts.push(`[terminal ${str(item.terminalId) ?? ''}]`);
  }
  return parts.length === 0 ? undefined : bounded(parts.join('\n'), SUMMARY_CHARS);
}

/** The diffs in a tool call's content, as diff events. */
function diffEvents(content: unknown): RunEvent[] {
  if (!Array.isArray(content)) return [];
  const events: RunEvent[] = [];
  for (const item of content) {
    if (!isObj(item) || item.type !== 'diff') continue;
    const path = str(item.path);
    const newText = str(item.newText);
    if (path === undefined || newText === undefined) continue;
    const oldText = str(item.oldText);
    events.push({
      type: 'diff',
      path: bounded(path, 1000),
      newText: bounded(newText, DIFF_CHARS),
      ...(oldText === undefined ? {} : { oldText: bounded(oldText, DIFF_CHARS) }),
    });
  }
  return events;
}

function planEntries(entries: unknown): PlanEntry[] {
  if (!Array.isArray(entries)) return [];
  const result: PlanEntry[] = [];
  for (const entry of entries.slice(0, 200)) {
    if (!isObj(entry)) continue;
    const content = str(entry.content);
    if (content === undefined) continue;
    const status = PLAN_STATUSES.has(entry.status as PlanEntry['status'])
      ? (entry.status as PlanEntry['status'])
      : 'pending';
    const item: PlanEntry = { content: bounded(content, SUMMARY_CHARS), status };
    if (PLAN_PRIORITIES.has(entry.priority as NonNullable<PlanEntry['priority']>))
      item.priority = entry.priority as NonNullable<PlanEntry['priority']>;
    result.push(item);
  }
  return result;
}

/** What one `session/update` means for the run. */
export interface MappedUpdate {
  events: RunEvent[];
  /** Text the agent said (part of the turn's answer). */
  text?: string;
  /** A cumulative cost the agent reported (`usage_update`), in US dollars. */
  costUsd?: number;
}

/** Maps one `session/update`'s `update` onto run events; unknown kinds map to nothing. */
export function mapSessionUpdate(update: unknown, tools: ToolCalls): MappedUpdate {
  if (!isObj(update)) return { events: [] };
  switch (update.sessionUpdate) {
    case 'agent_message_chunk': {
      const text = blockText(update.content);
      return text === undefined || text === ''
        ? { events: [] }
        : { events: [{ type: 'message', text }], text };
    }
    case 'agent_thought_chunk': {
      const text = blockText(update.content);
      return { events: text === undefined || text === '' ? [] : [{ type: 'thought', text }] };
    }
    case 'tool_call':
    case 'tool_call_update': {
      const view = tools.merge(update);
      if (view === undefined) return { events: [] };
      return { events: [{ type: 'tool_call', toolCall: view }, ...diffEvents(update.content)] };
    }
    case 'plan':
      return { events: [{ type: 'plan', entries: planEntries(update.entries) }] };
    case 'usage_update': {
      const cost = update.cost;
      if (
        isObj(cost) &&
        cost.currency === 'USD' &&
        typeof cost.amount === 'number' &&
        Number.isFinite(cost.amount)
      )
        return { events: [], costUsd: cost.amount };
      return { events: [] };
    }
    default:
      return { events: [] };
  }
}

/** The agent's permission options, those with a known kind (at most 16). */
function permissionOptions(options: unknown): PermissionOption[] {
  if (!Array.isArray(options)) return [];
  const result: PermissionOption[] = [];
  for (const option of options.slice(0, 16)) {
    if (!isObj(option)) continue;
    const optionId = str(option.optionId);
    if (optionId === undefined || !isPermissionOptionKind(option.kind)) continue;
    result.push({
      optionId,
      name: bounded(str(option.name) ?? optionId, 200),
      kind: option.kind as PermissionOptionKind,
    });
  }
  return result;
}

/** An ACP `session/request_permission` as the run's permission request (its tool call merged with what is known of it). */
export function permissionRequest(requestId: string, params: unknown, tools: ToolCalls): PermissionRequest {
  const request = isObj(params) ? params : {};
  const toolCall = (isObj(request.toolCall) ? tools.merge(request.toolCall, false) : undefined) ?? {
    id: 'unknown',
    title: 'unknown tool call',
    kind: 'other',
    status: 'pending',
  };
  return { requestId, toolCall, options: permissionOptions(request.options) };
}

/**
 * Claude Code's stream-json messages as run events: text → message, thinking → thought,
 * tool_use → tool_call (kind from the tool name, bounded input summary, locations), tool results
 * → the tool call completed or failed, TodoWrite → plan, a successful Edit/Write → diff, and a
 * result's usage and cost → usage totals.
 */
import type { PlanEntry, RunEvent, RunUsage, ToolCallView, ToolKind } from './run-event.js';

const INPUT_CHARS = 500;
const OUTPUT_CHARS = 2000;
const DIFF_CHARS = 64 * 1024;

type Json = Record<string, unknown>;

const KIND_BY_TOOL: Record<string, ToolKind> = {
  Read: 'read',
  NotebookRead: 'read',
  Write: 'edit',
  Edit: 'edit',
  MultiEdit: 'edit',
  NotebookEdit: 'edit',
  Bash: 'execute',
  BashOutput: 'execute',
  KillShell: 'execute',
  Grep: 'search',
  Glob: 'search',
  LS: 'search',
  ToolSearch: 'search',
  WebSearch: 'search',
  WebFetch: 'fetch',
  TodoWrite: 'think',
  Task: 'think',
  ExitPlanMode: 'think',
  EnterPlanMode: 'think',
};

export function toolKind(name: string): ToolKind {
  return KIND_BY_TOOL[name] ?? 'other';
}

/** The one input a person reads first: the command, the file, the URL, the pattern. */
function primaryInput(name: string, input: Json): string | undefined {
  const pick = (key: string): string | undefined =>
    typeof input[key] === 'string' ? (input[key] as string) : undefined;
  if (name === 'Bash') return pick('command');
  return (
    pick('file_path') ??
    pick('notebook_path') ??
    pick('url') ??
    pick('pattern') ??
    pick('path') ??
    pick('query')
  );
}

/** A tool call's first view, from a `tool_use` block (or a permission request's tool and input). */
export function toolCallView(id: string, name: string, input: unknown): ToolCallView {
  const fields: Json = typeof input === 'object' && input !== null ? (input as Json) : {};
  const primary = primaryInput(name, fields);
  const view: ToolCallView = {
    id,
    name,
    kind: toolKind(name),
    status: 'pending',
    title:
      primary === undefined ? name : `${name}${name === 'Bash' ? ':' : ''} ${bounded(oneLine(primary), 120)}`,
    input: bounded(primary ?? JSON.stringify(fields), INPUT_CHARS),
  };
  const locations = [fields.file_path, fields.notebook_path].filter(
    (v): v is string => typeof v === 'string',
  );
  if (locations.length > 0) view.locations = locations;
  return view;
}

/** Events of one content block of an assistant message. */
export function assistantBlockEvents(block: Json): RunEvent[] {
  if (block.type === 'text' && typeof block.text === 'string') return [{ type: 'message', text: block.text }];
  if (block.type === 'thinking' && typeof block.thinking === 'string')
    return [{ type: 'thought', text: block.thinking }];
  if (block.type !== 'tool_use' || typeof block.id !== 'string' || typeof block.name !== 'string') return [];
  const events: RunEvent[] = [
    { type: 'tool_call', toolCall: toolCallView(block.id, block.name, block.input) },
  ];
  if (block.name === 'TodoWrite') {
    const entries = planEntries(block.input);
    if (entries !== undefined) events.push({ type: 'plan', entries });
  }
  return events;
}

/** A chunk of text or thinking from a partial-message `stream_event`. */
export function streamChunkEvent(event: unknown): RunEvent | undefined {
  if (typeof event !== 'object' || event === null) return undefined;
  const { type, delta } = event as Json;
  if (type !== 'content_block_delta' || typeof delta !== 'object' || delta === null) return undefined;
  const fields = delta as Json;
  if (fields.type === 'text_delta' && typeof fields.text === 'string')
    return { type: 'message', text: fields.text };
  if (fields.type === 'thinking_delta' && typeof fields.thinking === 'string')
    return { type: 'thought', text: fields.thinking };
  return undefined;
}

/** The tool call as finished, from a `tool_result` block. */
export function finishedToolCall(call: ToolCallView, result: Json): ToolCallView {
  const failed = result.is_error === true;
  return {
    ...call,
    status: failed ? 'failed' : 'completed',
    output: bounded(resultText(result.content), OUTPUT_CHARS),
  };
}

/** The diff a successful Write/Edit/MultiEdit made, from its input. */
export function diffOf(name: string, input: unknown): RunEvent | undefined {
  if (typeof input !== 'object' || input === null) return undefined;
  const fields = input as Json;
  const path = fields.file_path;
  if (typeof path !== 'string') return undefined;
  if (name === 'Write' && typeof fields.content === 'string')
    return { type: 'diff', path, newText: bounded(fields.content, DIFF_CHARS) };
  if (name === 'Edit' && typeof fields.old_string === 'string' && typeof fields.new_string === 'string')
    return {
      type: 'diff',
      path,
      oldText: bounded(fields.old_string, DIFF_CHARS),
      newText: bounded(fields.new_string, DIFF_CHARS),
    };
  if (name === 'MultiEdit' && Array.isArray(fields.edits)) {
    const edits = fields.edits.filter((e): e is Json => typeof e === 'object' && e !== null);
    const join = (key: string): string =>
      edits.map((e) => (typeof e[key] === 'string' ? e[key] : '')).join('\n…\n');
    return {
      type: 'diff',
      path,
      oldText: bounded(join('old_string'), DIFF_CHARS),
      newText: bounded(join('new_string'), DIFF_CHARS),
    };
  }
  return undefined;
}

/** A `result` message's (or an assistant message's) token counts; cost is added by the caller. */
export function usageOf(usage: unknown): RunUsage {
  const fields: Json = typeof usage === 'object' && usage !== null ? (usage as Json) : {};
  const count = (key: string): number => {
    const value = fields[key];
    return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : 0;
  };
  return {
    inputTokens: count('input_tokens'),
    outputTokens: count('output_tokens'),
    cacheReadTokens: count('cache_read_input_tokens'),
    cacheWriteTokens: count('cache_creation_input_tokens'),
  };
}

function planEntries(input: unknown): PlanEntry[] | undefined {
  const todos = typeof input === 'object' && input !== null ? (input as Json).todos : undefined;
  if (!Array.isArray(todos)) return undefined;
  return todos
    .filter((t): t is Json => typeof t === 'object' && t !== null && typeof (t as Json).content === 'string')
    .map((t) => ({
      content: t.content as string,
      status: t.status === 'completed' || t.status === 'in_progress' ? t.status : 'pending',
    }));
}

function resultText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return JSON.stringify(content ?? '');
  return content
    .map((part: unknown) =>
      typeof part === 'object' && part !== null && typeof (part as Json).text === 'string'
        ? ((part as Json).text as string)
        : `[${String((part as Json | null)?.type ?? 'content')}]`,
    )
    .join('\n');
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function bounded(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

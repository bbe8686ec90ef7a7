/**
 * The run store as the page reads it: `agent://runs` (stored runs, newest first, a page at a
 * time, filtered by agent, state and text) and `agent://logs/{handle}` (a run's whole event log,
 * read page after page). Which runs come back is the daemon's rule (a restricted peer gets its
 * own); the page shows what it is given. Wire JSON is untrusted: rows are checked here.
 */
import type { AgentdApi } from './agentd-api.js';
import type { Json } from './connection.js';
import type { OutputLine } from './output-buffer.js';
import { entryOf, type RunEventEntry, usageOf } from './run-events.js';
import { usageWords } from './run-model.js';
import { dateTime, durationWords } from './time-words.js';

export interface HistoryFilters {
  agent?: string;
  state?: string;
  text?: string;
}

/** One stored run as the History list shows it (all text, made inert where drawn). */
export interface HistoryRow {
  handle: string;
  runId: string;
  agent: string;
  state: string;
  terminal: boolean;
  startedAt: string;
  started: string;
  duration: string;
  /** Tokens and cost, when the agent reported them. */
  usage?: string;
  /** The first line of the instruction, when the record has one. */
  instruction?: string;
}

export interface HistoryPage {
  rows: HistoryRow[];
  nextCursor?: string;
}

/** How many runs one page asks for. */
const HISTORY_PAGE = 50;
/** A log read stops after this many pages (of up to 1000 events each): a guard, not a limit anyone meets. */
const MAX_LOG_PAGES = 10_000;

/** `agent://runs?…` for these filters (empty ones left out) and the cursor of the page before. */
export function runsUri(filters: HistoryFilters, cursor?: string, limit = HISTORY_PAGE): string {
  const params = new URLSearchParams();
  for (const key of ['agent', 'state', 'text'] as const) {
    const value = filters[key]?.trim();
    if (value !== undefined && value !== '') params.set(key, value);
  }
  if (cursor !== undefined) params.set('cursor', cursor);
  params.set('limit', String(limit));
  return `agent://runs?${params.toString()}`;
}

export function logsUri(handle: string, after: number): string {
  const base = `agent://logs/${encodeURIComponent(handle)}`;
  return after > 0 ? `${base}?after=${after}` : base;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** The first non-empty line of a text, without its surrounding blanks. */
export function firstLine(text: string): string {
  return (
    text
      .split('\n')
      .map((line) => line.trim())
      .find((line) => line !== '') ?? ''
  );
}

/** A listed summary as a row; undefined when it lacks what names a run. */
export function historyRow(summary: unknown, now: number): HistoryRow | undefined {
  if (typeof summary !== 'object' || summary === null || Array.isArray(summary)) return undefined;
  const s = summary as Json;
  const handle = str(s.handle);
  const runId = str(s.runId);
  const startedAt = str(s.startedAt);
  if (handle === undefined || runId === undefined || startedAt === undefined) return undefined;
  const state = str(s.state) ?? 'unknown';
  const row: HistoryRow = {
    handle,
    runId,
    agent: str(s.agent) ?? '',
    state,
    terminal: s.terminal === true,
    startedAt,
    started: dateTime(startedAt),
    duration: durationWords(startedAt, str(s.endedAt), now),
  };
  const usage = usageOf(s.usage);
  if (usage !== undefined) row.usage = usageWords(usage);
  const instruction = str(s.instruction);
  if (instruction !== undefined && firstLine(instruction) !== '') row.instruction = firstLine(instruction);
  return row;
}

/** One page of the history. */
export async function readHistoryPage(
  api: AgentdApi,
  filters: HistoryFilters,
  cursor?: string,
): Promise<HistoryPage> {
  const page = await api.read(runsUri(filters, cursor));
  const now = Date.now();
  const rows = (Array.isArray(page.runs) ? page.runs : []).flatMap((summary) => {
    const row = historyRow(summary, now);
    return row === undefined ? [] : [row];
  });
  const next = str(page.nextCursor);
  // A cursor that does not move on would page forever.
  return next === undefined || next === cursor ? { rows } : { rows, nextCursor: next };
}

/** A run's whole stored event log: every page, in order, the malformed events dropped. */
export async function readWholeLog(api: AgentdApi, handle: string): Promise<RunEventEntry[]> {
  const entries: RunEventEntry[] = [];
  let after = 0;
  for (let page = 0; page < MAX_LOG_PAGES; page++) {
    const body = await api.read(logsUri(handle, after));
    for (const event of Array.isArray(body.events) ? body.events : []) {
      const entry = entryOf(event);
      if (entry !== undefined) entries.push(entry);
    }
    const next = body.next;
    if (typeof next !== 'number' || !Number.isFinite(next) || next <= after) break;
    after = next;
  }
  return entries;
}

/** The output lines a log's message events are (plain and protocol runs print lines). */
export function linesOf(entries: readonly RunEventEntry[]): OutputLine[] {
  const lines: OutputLine[] = [];
  for (const { event } of entries) {
    if (event.type !== 'message') continue;
    const stream = event.stream ?? 'stdout';
    const parts = event.text.split('\n');
    // A text ending in a newline ends its line; it adds no empty one.
    if (parts.length > 1 && parts[parts.length - 1] === '') parts.pop();
    for (const text of parts) lines.push({ stream, text });
  }
  return lines;
}

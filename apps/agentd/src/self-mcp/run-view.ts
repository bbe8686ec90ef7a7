/**
 * The one bounded view of a run for the wire. Sizes are measured as the run's text is sent: JSON
 * escaped (a control byte is six bytes on the wire), so an agent's output can never make the answer
 * that carries it too large to send. A view that left something out says so: `truncated: true`,
 * `outputBytes` (the whole output's UTF-8 size) and a visible marker at the cut.
 *
 * - `runDetail`: one run, asked for by handle (spawn, status, wait, cancel, agent://subagent/…):
 *   its output and result up to DETAIL_TEXT_BYTES each.
 *   Its recent events, newest kept, up to DETAIL_EVENTS_BYTES (`eventsTruncated` when older ones
 *   were left out here; the run itself keeps at most its ring, supervisor/event-ring.ts).
 * - `runSummary`: one row of a listing (agent://inventory): no output, result or events, a short tail.
 */
import { isJsonObject, type JsonObject } from '@agentd/rpc-frame';
import type { SubagentStatus } from '../supervisor/index.js';

/** Encoded bytes of one text field of a run's detail view (output, result.text, error.data). */
const DETAIL_TEXT_BYTES = 1024 * 1024;
/**
 * Encoded bytes of a listing row's tail lines (whole lines: the supervisor already cut each to
 * 1000 characters, and a page that reads a run by handle merges them with its tail, line by line).
 */
const SUMMARY_TAIL_BYTES = 8192;
/** Encoded bytes of a run's recent events in its detail view (the ring's own bound). */
const DETAIL_EVENTS_BYTES = 256 * 1024;
/** Encoded bytes of a listing row's other free texts (error message, stderr tail, reason). */
const SUMMARY_TEXT_BYTES = 512;

/** The bytes `text` takes inside a JSON string (quotes excluded), as UTF-8. */
export function encodedSize(text: string): number {
  return boundText(text, Number.POSITIVE_INFINITY).bytes;
}

/** The cost of one UTF-16 unit inside a JSON string; a surrogate pair costs 4 in all (2 + 2). */
function unitCost(text: string, i: number): number {
  const c = text.charCodeAt(i);
  if (c < 0x20) return c === 0x08 || c === 0x09 || c === 0x0a || c === 0x0c || c === 0x0d ? 2 : 6;
  if (c === 0x22 || c === 0x5c) return 2;
  if (c < 0x80) return 1;
  if (c < 0x800) return 2;
  if (c >= 0xd800 && c <= 0xdbff) {
    const next = text.charCodeAt(i + 1);
    return next >= 0xdc00 && next <= 0xdfff ? 2 : 6;
  }
  if (c >= 0xdc00 && c <= 0xdfff) {
    const previous = text.charCodeAt(i - 1);
    return previous >= 0xd800 && previous <= 0xdbff ? 2 : 6;
  }
  return 3;
}

/**
 * The longest head of `text` whose JSON-escaped size is at most `budget` bytes (never cutting a
 * surrogate pair), with the size it has. `cut` is true when the head is not the whole text.
 */
function boundText(text: string, budget: number): { head: string; bytes: number; cut: boolean } {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const cost = unitCost(text, i);
    if (bytes + cost > budget) {
      const end = i > 0 && isHighSurrogate(text.charCodeAt(i - 1)) ? i - 1 : i;
      return { head: text.slice(0, end), bytes, cut: true };
    }
    bytes += cost;
  }
  return { head: text, bytes, cut: false };
}

const isHighSurrogate = (c: number): boolean => c >= 0xd800 && c <= 0xdbff;

/** The visible marker a cut text ends with: where it was cut, and how large the whole was. */
function truncationMarker(wholeBytes: number): string {
  return `\n[agentd: output truncated here; the whole output is ${wholeBytes} bytes]`;
}

/** `text` cut to `budget` encoded bytes, marker included; undefined when it fits whole. */
function boundedText(text: string, budget: number): string | undefined {
  const marker = truncationMarker(Buffer.byteLength(text, 'utf8'));
  if (encodedSize(text) <= budget) return undefined;
  return `${boundText(text, Math.max(0, budget - encodedSize(marker))).head}${marker}`;
}

/** The status as plain JSON: undefined fields stripped so it stays structuredContent-clean. */
function plain(status: SubagentStatus | JsonObject): JsonObject {
  return JSON.parse(JSON.stringify(status)) as JsonObject;
}

/** The bytes `value` takes as JSON (already escaped: measured as it is, not escaped again). */
const jsonSize = (value: unknown): number => Buffer.byteLength(JSON.stringify(value) ?? '', 'utf8');

/** Cuts `view.output` to `budget` bytes, keeping its whole size in `outputBytes`; true when cut. */
function boundOutput(view: JsonObject, budget: number): boolean {
  if (typeof view.output !== 'string') return false;
  const cut = boundedText(view.output, budget);
  if (cut === undefined) return false;
  view.outputBytes = Buffer.byteLength(view.output, 'utf8');
  view.output = cut;
  return true;
}

/** One run asked for by handle: output, result and error data bounded to DETAIL_TEXT_BYTES each. */
export function runDetail(status: SubagentStatus | JsonObject, budget = DETAIL_TEXT_BYTES): JsonObject {
  const view = plain(status);
  let truncated = boundOutput(view, budget);
  if (view.result !== undefined && jsonSize(view.result) > budget) {
    truncated = true;
    const result = view.result;
    // A plain run's `{text}` keeps its head; any other too-large result is left out (`output` has its text).
    if (isJsonObject(result) && typeof result.text === 'string' && Object.keys(result).length === 1)
      view.result = { text: boundedText(result.text, budget) ?? result.text };
    else delete view.result;
  }
  if (isJsonObject(view.error)) {
    const error = view.error;
    const message = typeof error.message === 'string' ? boundedText(error.message, budget) : undefined;
    if (message !== undefined) error.message = message;
    const tooLarge = error.data !== undefined && jsonSize(error.data) > budget;
    if (tooLarge) error.data = boundedText(JSON.stringify(error.data), budget) ?? null;
    truncated ||= message !== undefined || tooLarge;
  }
  if (Array.isArray(view.events)) {
    const kept = newestFitting(view.events, DETAIL_EVENTS_BYTES);
    if (kept.length < view.events.length) view.eventsTruncated = true;
    view.events = kept;
  }
  if (truncated) view.truncated = true;
  return view;
}

/** The newest entries of `events` whose JSON fits `budget` bytes together, oldest first. */
function newestFitting(events: unknown[], budget: number): unknown[] {
  let left = budget;
  let first = events.length;
  while (first > 0) {
    const cost = jsonSize(events[first - 1]) + 1;
    if (cost > left) break;
    left -= cost;
    first -= 1;
  }
  return events.slice(first);
}

/**
 * A warm session's turn (subagent.send's SendResult) bounded as a run's detail is: its `output`
 * and its `reply` (the agent's result or error object) up to `budget` encoded bytes each.
 */
export function turnView(turn: unknown, budget = DETAIL_TEXT_BYTES): JsonObject | null {
  const view = JSON.parse(JSON.stringify(turn ?? null)) as JsonObject | null;
  if (!isJsonObject(view)) return view;
  let truncated = boundOutput(view, budget);
  if (view.reply !== undefined && jsonSize(view.reply) > budget) {
    const reply = view.reply;
    view.reply =
      isJsonObject(reply) && typeof reply.text === 'string' && Object.keys(reply).length === 1
        ? { text: boundedText(reply.text, budget) ?? reply.text }
        : null;
    truncated = true;
  }
  if (truncated) view.truncated = true;
  return view;
}

/** The last whole lines that fit `budget` encoded bytes. */
function boundedTail(lines: unknown[], budget: number): { lines: JsonObject[]; cut: boolean } {
  const kept: JsonObject[] = [];
  let left = budget;
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i];
    if (!isJsonObject(line) || typeof line.text !== 'string') continue;
    const cost = encodedSize(line.text) + 32;
    if (cost > left) return { lines: kept.reverse(), cut: true };
    kept.push(line);
    left -= cost;
  }
  return { lines: kept.reverse(), cut: false };
}

/**
 * One row of a listing: what the run is and how it went, never its output (that is read by
 * handle). A bounded tail of its last lines and the size of its output say what there is to read.
 */
export function runSummary(status: SubagentStatus | JsonObject): JsonObject {
  const { output, result: _result, events: _events, tail, error, reason, ...rest } = plain(status);
  const view: JsonObject = rest;
  if (typeof output === 'string') view.outputBytes = Buffer.byteLength(output, 'utf8');
  if (Array.isArray(tail)) {
    const bounded = boundedTail(tail, SUMMARY_TAIL_BYTES);
    view.tail = bounded.lines;
    if (bounded.cut) view.tailTruncated = true;
  }
  if (typeof reason === 'string') view.reason = boundedText(reason, SUMMARY_TEXT_BYTES) ?? reason;
  if (isJsonObject(error)) {
    const { data: _data, stderrTail, message, ...kept } = error;
    const summary: JsonObject = { ...kept };
    if (typeof message === 'string') summary.message = boundedText(message, SUMMARY_TEXT_BYTES) ?? message;
    if (typeof stderrTail === 'string')
      summary.stderrTail = boundedText(stderrTail, SUMMARY_TEXT_BYTES) ?? stderrTail;
    view.error = summary;
  }
  return view;
}

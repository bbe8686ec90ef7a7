/** Server-Sent Events framing shared by every HTTP stream. */
import { invalidArgument } from './local-errors.js';
import type { JsonRpcMessage } from './messages.js';

export interface SseEvent {
  /** The payload; line breaks (`\n`, `\r\n`, `\r`) become separate `data:` lines. */
  data: string;
  /** Event id (sent back as `Last-Event-ID` on reconnect); no CR, LF or NUL. */
  id?: string;
  /** Event type; no CR or LF. Absent means the client's default, `message`. */
  event?: string;
  /** Reconnection delay in milliseconds: a non-negative integer. */
  retry?: number;
}

const LINE_BREAK = /\r\n|\r|\n/;
const FIELD_BREAK = /[\r\n]/;
const ID_FORBIDDEN = /[\r\n\0]/;

/**
 * Encodes one event. Field values that would break the framing are programming errors and throw
 * a RangeError instead of being silently rewritten (a rewritten id would break resumption).
 */
export function encodeSseEvent(event: SseEvent): string {
  let out = '';
  if (event.event !== undefined) out += `event: ${checkField('event', event.event, FIELD_BREAK)}\n`;
  if (event.id !== undefined) out += `id: ${checkField('id', event.id, ID_FORBIDDEN)}\n`;
  if (event.retry !== undefined) {
    if (!Number.isSafeInteger(event.retry) || event.retry < 0) {
      throw invalidArgument(`SSE retry must be a non-negative integer, got ${String(event.retry)}`);
    }
    out += `retry: ${event.retry}\n`;
  }
  for (const line of event.data.split(LINE_BREAK)) out += `data: ${line}\n`;
  return `${out}\n`;
}

/** One JSON-RPC message as one `message` event (JSON text has no raw line breaks). */
export function encodeSseMessage(message: JsonRpcMessage, id?: string): string {
  const data = JSON.stringify(message);
  return id === undefined
    ? `event: message\ndata: ${data}\n\n`
    : `event: message\nid: ${checkField('id', id, ID_FORBIDDEN)}\ndata: ${data}\n\n`;
}

/** A comment, ignored by clients: a keep-alive. Line breaks in the text become spaces. */
export function encodeSseComment(text = ''): string {
  return text === '' ? ':\n\n' : `: ${text.replace(/\r\n|\r|\n/g, ' ')}\n\n`;
}

function checkField(name: string, value: string, forbidden: RegExp): string {
  if (forbidden.test(value)) throw invalidArgument(`SSE ${name} must not contain line breaks or NUL`);
  return value;
}

/** Server-Sent Events framing shared by every HTTP stream. */
import type { JsonRpcMessage } from './messages.js';

export interface SseEvent {
  data: string;
  id?: string;
  event?: string;
  /** Reconnection delay in milliseconds. */
  retry?: number;
}

const LINE_BREAK = /\r\n|\r|\n/;

/** Encodes one event; multi-line data becomes several `data:` lines, as the SSE spec requires. */
export function encodeSseEvent(event: SseEvent): string {
  let out = '';
  if (event.event !== undefined) out += `event: ${singleLine(event.event)}\n`;
  if (event.id !== undefined) out += `id: ${singleLine(event.id)}\n`;
  if (event.retry !== undefined) out += `retry: ${Math.max(0, Math.floor(event.retry))}\n`;
  for (const line of event.data.split(LINE_BREAK)) out += `data: ${line}\n`;
  return `${out}\n`;
}

/** One JSON-RPC message as one `message` event. */
export function encodeSseMessage(message: JsonRpcMessage, id?: string): string {
  const data = JSON.stringify(message);
  return id === undefined
    ? `event: message\ndata: ${data}\n\n`
    : `event: message\nid: ${singleLine(id)}\ndata: ${data}\n\n`;
}

/** A comment line, ignored by clients: used as a keep-alive. */
export function encodeSseComment(text = ''): string {
  return text === '' ? ':\n\n' : `: ${singleLine(text)}\n\n`;
}

function singleLine(value: string): string {
  return value.replace(/[\r\n]/g, ' ');
}

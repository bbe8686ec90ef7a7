/** NDJSON encoding: one compact JSON text and a `\n` per message. */
import type { JsonRpcMessage } from './messages.js';

/** JSON.stringify escapes every newline inside strings, so the only `\n` is the terminator. */
export function encodeFrame(message: JsonRpcMessage): string {
  return `${JSON.stringify(message)}\n`;
}

/** Opaque list cursors: they name the last key served, so a page boundary survives list changes. */
import { refuse } from '@agentd/lifecycle';
import { fromBase64Url, toBase64Url } from './base64.js';

const utf8 = new TextEncoder();
const fromUtf8 = new TextDecoder();

export function encodeCursor(list: string, afterKey: string): string {
  return toBase64Url(utf8.encode(JSON.stringify([list, afterKey])));
}

/** Returns the key to resume after; -32602 for anything this server did not mint for this list. */
export function decodeCursor(list: string, cursor: unknown): string | undefined {
  if (cursor === undefined) return undefined;
  const invalid = refuse.invalidCursor();
  if (typeof cursor !== 'string' || cursor.length === 0 || cursor.length > 4096) throw invalid;
  if (!/^[A-Za-z0-9_-]+$/.test(cursor)) throw invalid;
  let decoded: unknown;
  try {
    decoded = JSON.parse(fromUtf8.decode(fromBase64Url(cursor)));
  } catch {
    throw invalid;
  }
  if (
    !Array.isArray(decoded) ||
    decoded.length !== 2 ||
    decoded[0] !== list ||
    typeof decoded[1] !== 'string'
  ) {
    throw invalid;
  }
  return decoded[1];
}

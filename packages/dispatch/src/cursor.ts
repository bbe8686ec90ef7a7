/** Opaque list cursors: they name the last key served, so a page boundary survives list changes. */
import { refuse } from '@agentd/lifecycle';

export function encodeCursor(list: string, afterKey: string): string {
  return Buffer.from(JSON.stringify([list, afterKey]), 'utf8').toString('base64url');
}

/** Returns the key to resume after; -32602 for anything this server did not mint for this list. */
export function decodeCursor(list: string, cursor: unknown): string | undefined {
  if (cursor === undefined) return undefined;
  const invalid = refuse.invalidCursor();
  if (typeof cursor !== 'string' || cursor.length === 0 || cursor.length > 4096) throw invalid;
  if (!/^[A-Za-z0-9_-]+$/.test(cursor)) throw invalid;
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
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

/**
 * Where a JSON text stops being JSON, as line and column: V8's messages give a position only for
 * some errors (and a line/column only from Node 22), so the place is found by parsing prefixes.
 */

const AT_POSITION = /\s+in JSON at position (\d+)(?: \(line \d+ column \d+\))?/;

/** V8 echoes the whole text in some messages (`Unexpected token '}', "{…}" is not valid JSON`). */
function reason(message: string): string {
  const bare = message.replace(AT_POSITION, '').replace(/, ".*" is not valid JSON$/s, '');
  return `${bare.charAt(0).toLowerCase()}${bare.slice(1)}`;
}

/** A prefix of valid JSON fails only at its end (or parses): the longest such prefix ends where the error is. */
function viable(text: string, length: number): boolean {
  try {
    JSON.parse(text.slice(0, length));
    return true;
  } catch (error) {
    const message = (error as Error).message;
    if (message.startsWith('Unexpected end of JSON input')) return true;
    const at = AT_POSITION.exec(message);
    return at !== null && Number(at[1]) >= length;
  }
}

function errorOffset(text: string, message: string): number {
  const at = AT_POSITION.exec(message);
  if (at !== null) return Number(at[1]);
  if (message.startsWith('Unexpected end of JSON input')) return text.length;
  let low = 0;
  let high = text.length;
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (viable(text, mid)) low = mid;
    else high = mid - 1;
  }
  return low;
}

/** `line 3, column 5: unexpected token '}'` for the SyntaxError JSON.parse threw on `text`. */
export function describeJsonError(text: string, error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const offset = Math.min(errorOffset(text, message), text.length);
  const before = text.slice(0, offset).split('\n');
  const line = before.length;
  const column = (before.at(-1)?.length ?? 0) + 1;
  return `line ${line}, column ${column}: ${reason(message)}`;
}

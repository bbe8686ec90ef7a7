/** Decodes MCP header values, including the `=?base64?…?=` form for non-ASCII values. */

const PREFIX = '=?base64?';
const SUFFIX = '?=';
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const PLAIN = /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/;

/**
 * Returns the decoded value, or undefined when the header carries invalid characters or a
 * malformed base64 sentinel (both answered with -32020 by the caller).
 */
export function decodeHeaderValue(raw: string): string | undefined {
  if (raw.startsWith(PREFIX) && raw.endsWith(SUFFIX) && raw.length >= PREFIX.length + SUFFIX.length) {
    const encoded = raw.slice(PREFIX.length, raw.length - SUFFIX.length);
    if (encoded.length % 4 !== 0 || !BASE64.test(encoded)) return undefined;
    const binary = atob(encoded);
    const bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    const text = new TextDecoder('utf-8', { fatal: true });
    try {
      return text.decode(bytes);
    } catch {
      return undefined;
    }
  }
  return raw === '' || PLAIN.test(raw) ? raw : undefined;
}

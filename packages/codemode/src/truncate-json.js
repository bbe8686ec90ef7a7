/** Structural truncation of a JSON value to a byte budget, keeping the output valid JSON. */

/** @param {string} text */
export function utf8Length(text) {
  return Buffer.byteLength(text, 'utf8');
}

/**
 * @param {unknown} value
 * @param {{ maxString: number, maxItems: number, maxDepth: number }} caps
 * @param {number} depth
 * @returns {unknown}
 */
function shrink(value, caps, depth) {
  if (typeof value === 'string') {
    if (value.length <= caps.maxString) return value;
    return `${value.slice(0, caps.maxString)}… [${value.length - caps.maxString} more characters truncated]`;
  }
  if (value === null || typeof value !== 'object') return value;
  if (depth >= caps.maxDepth) return Array.isArray(value) ? '[array truncated]' : '[object truncated]';
  if (Array.isArray(value)) {
    const kept = value.slice(0, caps.maxItems).map((item) => shrink(item, caps, depth + 1));
    if (value.length > caps.maxItems) kept.push(`… ${value.length - caps.maxItems} more items truncated`);
    return kept;
  }
  const entries = Object.entries(value);
  /** @type {Record<string, unknown>} */
  const out = {};
  for (const [key, item] of entries.slice(0, caps.maxItems)) out[key] = shrink(item, caps, depth + 1);
  if (entries.length > caps.maxItems) out['…'] = `${entries.length - caps.maxItems} more keys truncated`;
  return out;
}

/**
 * Returns JSON text of at most `maxBytes` UTF-8 bytes for `value`: unchanged when it fits, otherwise
 * with long strings cut, long arrays and objects shortened and deep nesting collapsed (each cut
 * marked in place), and as a last resort a JSON string holding a prefix of the text.
 * @param {unknown} value
 * @param {number} maxBytes
 * @returns {{ text: string, truncated: boolean }}
 */
export function truncateJson(value, maxBytes) {
  const full = JSON.stringify(value) ?? 'null';
  if (utf8Length(full) <= maxBytes) return { text: full, truncated: false };
  const caps = { maxString: Math.max(16, Math.floor(maxBytes / 2)), maxItems: 1000, maxDepth: 24 };
  for (let round = 0; round < 24; round++) {
    const text = JSON.stringify(shrink(value, caps, 0)) ?? 'null';
    if (utf8Length(text) <= maxBytes) return { text, truncated: true };
    caps.maxString = Math.max(16, Math.floor(caps.maxString / 2));
    caps.maxItems = Math.max(1, Math.floor(caps.maxItems / 2));
    if (round >= 8) caps.maxDepth = Math.max(1, caps.maxDepth - 3);
  }
  const marker = '… [result truncated]';
  let prefix = full.slice(0, Math.max(0, Math.floor(maxBytes / 3) - marker.length));
  let text = JSON.stringify(prefix + marker);
  while (utf8Length(text) > maxBytes && prefix.length > 0) {
    prefix = prefix.slice(0, Math.floor(prefix.length / 2));
    text = JSON.stringify(prefix + marker);
  }
  return { text, truncated: true };
}

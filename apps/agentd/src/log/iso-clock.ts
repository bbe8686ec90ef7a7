/**
 * The time now as an ISO 8601 string, made once per millisecond. Every run event is stamped twice
 * (its recent-events entry and its history line) and `toISOString` costs more than the rest of
 * stamping: a stream of events within one millisecond shares one string.
 */
let lastMs = Number.NaN;
let lastIso = '';

/** `new Date(ms).toISOString()`, reusing the last answer for the same millisecond. */
export function isoTime(ms: number = Date.now()): string {
  if (ms !== lastMs) {
    lastIso = new Date(ms).toISOString();
    lastMs = ms;
  }
  return lastIso;
}

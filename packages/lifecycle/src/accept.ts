/** `Accept` header matching (RFC 9110 §12.5.1): media ranges, wildcards, parameters and q-values. */

/**
 * True when some media range in `accept` covers `type` (`type/subtype`, lowercase) with q > 0:
 * the exact type, `major/*` or `*\/*`, compared case-insensitively; parameters are ignored.
 */
export function acceptsMediaType(accept: string | readonly string[] | undefined, type: string): boolean {
  if (accept === undefined) return false;
  const list = typeof accept === 'string' ? accept : accept.join(',');
  // A client sends the same Accept on every request: the last answer per type is kept.
  const last = lastAnswers.get(type);
  if (last?.accept === list) return last.accepted;
  const accepted = covers(list, type);
  if (last !== undefined || lastAnswers.size < MAX_TYPES) lastAnswers.set(type, { accept: list, accepted });
  return accepted;
}

/** Servers ask about a handful of types; others are answered without being remembered. */
const MAX_TYPES = 8;
const lastAnswers = new Map<string, { readonly accept: string; readonly accepted: boolean }>();

function covers(list: string, type: string): boolean {
  const slash = type.indexOf('/');
  const major = type.slice(0, slash);
  for (const range of list.split(',')) {
    const [name = '', ...params] = range.split(';');
    const media = name.trim().toLowerCase();
    if (media !== type && media !== `${major}/*` && media !== '*/*') continue;
    if (params.every((param) => !isZeroQ(param))) return true;
  }
  return false;
}

function isZeroQ(param: string): boolean {
  const eq = param.indexOf('=');
  if (eq === -1 || param.slice(0, eq).trim().toLowerCase() !== 'q') return false;
  return Number(param.slice(eq + 1).trim()) === 0;
}

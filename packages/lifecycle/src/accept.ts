/** `Accept` header matching (RFC 9110 §12.5.1): media ranges, wildcards, parameters and q-values. */

/**
 * True when some media range in `accept` covers `type` (`type/subtype`, lowercase) with q > 0:
 * the exact type, `major/*` or `*\/*`, compared case-insensitively; parameters are ignored.
 */
export function acceptsMediaType(accept: string | readonly string[] | undefined, type: string): boolean {
  if (accept === undefined) return false;
  const list = typeof accept === 'string' ? accept : accept.join(',');
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

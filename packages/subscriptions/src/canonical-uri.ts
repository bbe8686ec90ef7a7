/** RFC 3986 normalisation of resource URIs, so differently spelled subscriptions share one key. */

const SCHEME = /^([A-Za-z][A-Za-z0-9+.-]*):(.*)$/s;
const PERCENT = /%([0-9A-Fa-f]{2})/g;
const UNRESERVED = /[A-Za-z0-9\-._~]/;

/**
 * Trims whitespace, lower-cases the scheme and host, drops an empty port, normalises
 * percent-encoding (upper-case hex, unreserved characters decoded), removes `.`/`..` segments and
 * a trailing `/`. Strings without a scheme are only trimmed. Query and fragment keep their case.
 */
export function canonicalizeUri(uri: string): string {
  const trimmed = uri.trim();
  const match = SCHEME.exec(trimmed);
  if (match === null) return trimmed;
  const scheme = (match[1] as string).toLowerCase();
  const rest = normalisePercent(match[2] as string);
  const { hierarchy, suffix } = splitSuffix(rest);
  if (!hierarchy.startsWith('//')) return `${scheme}:${cleanPath(hierarchy, false)}${suffix}`;
  const afterSlashes = hierarchy.slice(2);
  const slash = afterSlashes.indexOf('/');
  const authority = slash === -1 ? afterSlashes : afterSlashes.slice(0, slash);
  const path = slash === -1 ? '' : afterSlashes.slice(slash);
  const host = normaliseAuthority(authority);
  return `${scheme}://${host}${cleanPath(path, host.length > 0)}${suffix}`;
}

function splitSuffix(rest: string): { hierarchy: string; suffix: string } {
  const at = rest.search(/[?#]/);
  return at === -1
    ? { hierarchy: rest, suffix: '' }
    : { hierarchy: rest.slice(0, at), suffix: rest.slice(at) };
}

function normalisePercent(text: string): string {
  return text.replace(PERCENT, (_, hex: string) => {
    const char = String.fromCharCode(Number.parseInt(hex, 16));
    return UNRESERVED.test(char) ? char : `%${hex.toUpperCase()}`;
  });
}

function normaliseAuthority(authority: string): string {
  const at = authority.lastIndexOf('@');
  const userinfo = at === -1 ? '' : authority.slice(0, at + 1);
  let hostPort = authority.slice(at + 1).toLowerCase();
  if (hostPort.endsWith(':')) hostPort = hostPort.slice(0, -1);
  return userinfo + hostPort;
}

/** Removes dot segments (RFC 3986 §5.2.4) and a trailing slash (but keeps a lone root `/`). */
function cleanPath(path: string, hasHost: boolean): string {
  if (path === '') return '';
  const absolute = path.startsWith('/');
  const out: string[] = [];
  for (const segment of path.split('/')) {
    if (segment === '.') continue;
    if (segment === '..') {
      if (out.length > (absolute ? 1 : 0)) out.pop();
      continue;
    }
    out.push(segment);
  }
  let joined = out.join('/');
  while (joined.length > 1 && joined.endsWith('/')) joined = joined.slice(0, -1);
  if (joined === '/' && hasHost) return '';
  return joined;
}

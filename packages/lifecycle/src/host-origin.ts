/**
 * DNS-rebinding guard of the HTTP transports: `Host` and `Origin` must name this server (loopback
 * by default). Pure functions over header values, so every HTTP server of the stack shares them.
 */

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

/** Splits `name[:port]` (and `[v6]:port`) into a lower-case host name. */
export function hostName(hostHeader: string): string {
  const value = hostHeader.trim().toLowerCase();
  if (value.startsWith('[')) {
    const end = value.indexOf(']');
    return end === -1 ? value : value.slice(0, end + 1);
  }
  const colon = value.indexOf(':');
  return colon === -1 ? value : value.slice(0, colon);
}

function isLoopbackName(name: string): boolean {
  return LOOPBACK_NAMES.has(name) || /^127(?:\.\d{1,3}){3}$/.test(name) || name.endsWith('.localhost');
}

export interface HostPolicy {
  /** Extra host names (`api.example.com` or `api.example.com:8443`), lower-case. */
  readonly hosts: ReadonlySet<string>;
  /** Extra origins (`https://app.example.com`), lower-case, no trailing slash. */
  readonly origins: ReadonlySet<string>;
}

export function hostPolicy(
  allowedHosts: readonly string[] = [],
  allowedOrigins: readonly string[] = [],
): HostPolicy {
  return {
    hosts: new Set(allowedHosts.map((h) => h.trim().toLowerCase())),
    origins: new Set(allowedOrigins.map((o) => o.trim().toLowerCase().replace(/\/+$/, ''))),
  };
}

/** A missing Host is refused: HTTP/1.1 requires it and the guard cannot work without it. */
export function isAllowedHost(host: string | undefined, policy: HostPolicy): boolean {
  if (host === undefined || host === '') return false;
  const value = host.trim().toLowerCase();
  const name = hostName(value);
  return isLoopbackName(name) || policy.hosts.has(value) || policy.hosts.has(name) || policy.hosts.has('*');
}

/** An absent Origin is fine (non-browser clients); a present one must be loopback or allow-listed. */
export function isAllowedOrigin(origin: string | undefined, policy: HostPolicy): boolean {
  if (origin === undefined) return true;
  const value = origin.trim().toLowerCase().replace(/\/+$/, '');
  if (policy.origins.has(value)) return true;
  if (value === 'null') return false;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
  return isLoopbackName(url.hostname.toLowerCase());
}

/**
 * DNS-rebinding guard of the HTTP transports: `Host` and `Origin` must name this server (loopback
 * by default). Pure functions over header values, so every HTTP server of the stack shares them.
 */

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

/** A `Host` header as a URL authority: its host name (lower-case; `[v6]` with brackets) and port, if any. */
export interface HostAuthority {
  readonly name: string;
  readonly port: string | undefined;
}

/** `host` or `[v6]`, then an optional `:port` of digits; nothing else (no userinfo, path or spaces). */
const AUTHORITY = /^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(?::([0-9]{1,5}))?$/;

/**
 * Parses a `Host` header as a URL authority (RFC 9110: `uri-host [ ":" port ]`), or undefined when
 * it is not one: userinfo (`127.0.0.1:x@evil.example`), a port that is not a number in 0–65535, an
 * empty host, or anything a URL parser would read as another host. `new URL('http://' + value)`
 * must give back exactly this host name and port, so the name checked is the name a client meant.
 */
export function parseHost(hostHeader: string): HostAuthority | undefined {
  const value = hostHeader.trim().toLowerCase();
  const match = AUTHORITY.exec(value);
  if (match === null) return undefined;
  const name = match[1] as string;
  const port = match[2];
  // A number in 0–65535 written the one way (`080` would be read as 80).
  if (port !== undefined && (Number(port) > 65_535 || String(Number(port)) !== port)) return undefined;
  // An empty punycode label: URL parsers disagree on it (Node 20 refuses it, Node 24 reads it).
  if (name.split('.').includes('xn--')) return undefined;
  let url: URL;
  try {
    url = new URL(`http://${value}`);
  } catch {
    return undefined;
  }
  // The parser rewrites what it reads another way (`127.1`, `0x7f.0.0.1`, a trailing dot kept, IDNA): refuse those.
  const samePort = url.port === (port ?? '') || (url.port === '' && port === '80');
  if (
    url.hostname !== name ||
    !samePort ||
    url.username !== '' ||
    url.password !== '' ||
    url.pathname !== '/'
  )
    return undefined;
  return { name, port };
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

/**
 * A missing Host is refused: HTTP/1.1 requires it and the guard cannot work without it. So is one
 * that is not a plain `host[:port]` authority (see `parseHost`), whatever the allow-list says.
 */
export function isAllowedHost(host: string | undefined, policy: HostPolicy): boolean {
  if (host === undefined) return false;
  const authority = parseHost(host);
  if (authority === undefined) return false;
  const { name, port } = authority;
  if (isLoopbackName(name) || policy.hosts.has('*') || policy.hosts.has(name)) return true;
  return port !== undefined && policy.hosts.has(`${name}:${port}`);
}

/**
 * An absent Origin is fine (non-browser clients); a present one must be allow-listed, or a loopback
 * `http(s)://host[:port]` origin, on any port: pages served from this machine may call the server
 * (no CORS headers are sent for them, only for allow-listed origins). An Origin a browser would
 * never send (userinfo, a path, a port out of range) is refused.
 */
export function isAllowedOrigin(origin: string | undefined, policy: HostPolicy): boolean {
  if (origin === undefined) return true;
  const value = origin.trim().toLowerCase().replace(/\/+$/, '');
  if (policy.origins.has(value)) return true;
  const scheme = /^(https?):\/\/(.*)$/.exec(value);
  if (scheme === null) return false;
  const authority = parseHost(scheme[2] as string);
  return authority !== undefined && isLoopbackName(authority.name);
}

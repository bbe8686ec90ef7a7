/** Serve-target grammar: unix:PATH, vsock:PORT, vsock:CID:PORT, http(s)://HOST:PORT[/PATH], stdio. */
import { isAbsolute, resolve } from 'node:path';
import { LocalError } from '@agentd/rpc-frame';
import { parseVsockAddress, VMADDR_CID_ANY } from '@agentd/transport-vsock';
import type { AgentdErrorCode } from '../local-errors.js';

export type ServeTarget =
  | { kind: 'unix'; raw: string; path: string }
  | { kind: 'vsock'; raw: string; cid: number | undefined; port: number }
  | { kind: 'http' | 'https'; raw: string; host: string; port: number; path: string; loopback: boolean }
  | { kind: 'stdio'; raw: string };

export class ServeTargetError extends LocalError<AgentdErrorCode> {
  override name = 'ServeTargetError';
  constructor(message: string) {
    super('invalid_config', message);
  }
}

/** True for 127.0.0.0/8, ::1 and localhost: the only hosts plain HTTP may bind without auth. */
export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
}

function parseHttp(raw: string): ServeTarget {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ServeTargetError(`${raw}: not a valid URL`);
  }
  const kind = url.protocol === 'https:' ? 'https' : 'http';
  if (url.username !== '' || url.password !== '')
    throw new ServeTargetError(`${raw}: credentials do not belong in a serve URL`);
  if (url.search !== '' || url.hash !== '')
    throw new ServeTargetError(`${raw}: query and fragment are not allowed`);
  // new URL drops default ports, so require one explicitly in the raw text.
  if (!/^https?:\/\/(\[[^\]]+\]|[^/:]+):[0-9]+(\/.*)?$/.test(raw)) {
    throw new ServeTargetError(`${raw}: an explicit port is required (0 picks a free one)`);
  }
  const port = url.port === '' ? (kind === 'https' ? 443 : 80) : Number(url.port);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const path = url.pathname === '/' ? '/mcp' : url.pathname.replace(/\/+$/, '');
  return { kind, raw, host, port, path, loopback: isLoopbackHost(host) };
}

/** Delegates to the transport's own grammar so agentd and the package never disagree. */
function parseVsockTarget(text: string): ServeTarget {
  try {
    const { cid, port } = parseVsockAddress(text);
    return { kind: 'vsock', raw: text, cid: cid === VMADDR_CID_ANY ? undefined : cid, port };
  } catch (error) {
    throw new ServeTargetError((error as Error).message);
  }
}

export function parseServeTarget(raw: string, baseDir: string = process.cwd()): ServeTarget {
  const text = raw.trim();
  if (text === 'stdio') return { kind: 'stdio', raw: text };
  if (text.startsWith('unix:')) {
    const path = text.slice('unix:'.length);
    if (path === '') throw new ServeTargetError(`${raw}: unix target needs a path`);
    return { kind: 'unix', raw: text, path: isAbsolute(path) ? path : resolve(baseDir, path) };
  }
  if (text.startsWith('vsock:')) return parseVsockTarget(text);
  if (text.startsWith('http://') || text.startsWith('https://')) return parseHttp(text);
  throw new ServeTargetError(
    `${raw}: unknown serve target (use unix:PATH, vsock:PORT, http://HOST:PORT, https://HOST:PORT or stdio)`,
  );
}

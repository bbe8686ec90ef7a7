/** The `--metrics` address: `http://HOST:PORT[/PATH]`, loopback unless requests are authenticated. */
import { LocalError } from '@agentd/rpc-frame';
import { isLoopbackHost } from '../config/serve-target.js';
import type { AgentdErrorCode } from '../local-errors.js';

export interface MetricsTarget {
  raw: string;
  host: string;
  port: number;
  /** Default `/metrics`. */
  path: string;
  loopback: boolean;
}

/** A `--metrics` address that cannot be served: a config problem, listed with the others. */
export class MetricsTargetError extends LocalError<AgentdErrorCode> {
  override name = 'MetricsTargetError';

  constructor(message: string) {
    super('invalid_config', message);
  }
}

export function parseMetricsTarget(raw: string): MetricsTarget {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new MetricsTargetError(`${raw}: not a valid URL (expected http://127.0.0.1:PORT)`);
  }
  if (url.protocol !== 'http:') throw new MetricsTargetError(`${raw}: metrics are served over http:// only`);
  if (url.username !== '' || url.password !== '' || url.search !== '' || url.hash !== '')
    throw new MetricsTargetError(`${raw}: credentials, query and fragment are not allowed`);
  // new URL drops a default port, so require one explicitly in the text.
  if (!/^http:\/\/(\[[^\]]+\]|[^/:]+):[0-9]+(\/.*)?$/.test(raw))
    throw new MetricsTargetError(`${raw}: an explicit port is required (0 picks a free one)`);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const path = url.pathname === '/' ? '/metrics' : url.pathname.replace(/\/+$/, '');
  return { raw, host, port: Number(url.port || '80'), path, loopback: isLoopbackHost(host) };
}

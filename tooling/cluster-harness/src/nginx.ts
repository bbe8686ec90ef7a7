/** A real nginx as a non-root foreground process with a generated config in a temp prefix. */
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { requireBinary } from './binaries.js';
import { startManaged } from './managed-process.js';
import { type NginxConfigOptions, renderNginxConfig } from './nginx-config.js';
import { freePort, waitForPort } from './ports.js';

export type NginxOptions = Omit<NginxConfigOptions, 'port' | 'prefix'>;

export interface Nginx {
  readonly port: number;
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  /** The generated nginx.conf. */
  readonly config: string;
  /** The error log so far (for failure messages). */
  output(): string;
  close(): Promise<void>;
}

export async function startNginx(options: NginxOptions): Promise<Nginx> {
  const binary = requireBinary('nginx');
  const prefix = await mkdtemp(join(tmpdir(), 'agentd-nginx-'));
  const port = await freePort();
  const config = renderNginxConfig({ ...options, port, prefix });
  const file = join(prefix, 'nginx.conf');
  await writeFile(file, config);
  // -e: the error log before the config is read (the default path is root's).
  const proc = startManaged(binary, ['-p', prefix, '-c', file, '-e', join(prefix, 'error.log')], prefix);
  try {
    await waitForPort(port, { alive: proc.alive, what: 'nginx' });
  } catch (error) {
    await proc.stop('SIGKILL');
    await rm(prefix, { recursive: true, force: true });
    throw new Error(`${(error as Error).message}\n${proc.output()}`);
  }
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    config,
    output() {
      let log = '';
      try {
        log = readFileSync(join(prefix, 'error.log'), 'utf8').slice(-4_000);
      } catch {
        // not written yet
      }
      return `${log}${proc.output()}`;
    },
    async close() {
      // SIGTERM is nginx's fast shutdown: open streams are cut, not drained.
      await proc.stop('SIGTERM');
      await rm(prefix, { recursive: true, force: true });
    },
  };
}

/** A real redis-server on a free loopback port in a temp dir, no persistence; stop/start/restart keep the port. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { requireBinary } from './binaries.js';
import { type ManagedProcess, startManaged } from './managed-process.js';
import { freePort, waitForPort } from './ports.js';

export interface RedisServer {
  readonly port: number;
  /** `redis://127.0.0.1:<port>` */
  readonly url: string;
  readonly running: boolean;
  /** Stops the process (SIGTERM; no save). The port and dir stay reserved for `start()`. */
  stop(): Promise<void>;
  /** Starts it again on the same port, empty (nothing persisted). */
  start(): Promise<void>;
  /** stop() then start(): what clients see as "Redis restarted". */
  restart(): Promise<void>;
  /** Stops it for good and removes the temp dir. */
  close(): Promise<void>;
}

export interface RedisServerOptions {
  /** Extra `--name value` arguments, e.g. `['--notify-keyspace-events', 'KEA']`. */
  readonly args?: readonly string[];
}

export async function startRedisServer(options: RedisServerOptions = {}): Promise<RedisServer> {
  const binary = requireBinary('redis-server');
  const dir = await mkdtemp(join(tmpdir(), 'agentd-redis-'));
  const port = await freePort();
  let current: ManagedProcess | undefined;
  const args = [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--dir',
    dir,
    '--save',
    '',
    '--appendonly',
    'no',
    '--daemonize',
    'no',
    '--logfile',
    '',
    ...(options.args ?? []),
  ];
  const start = async () => {
    if (current?.alive()) return;
    const proc = startManaged(binary, args, dir);
    current = proc;
    try {
      await waitForPort(port, { alive: proc.alive, what: 'redis-server' });
    } catch (error) {
      await proc.stop('SIGKILL');
      throw new Error(`${(error as Error).message}\n${proc.output()}`);
    }
  };
  const stop = async () => {
    await current?.stop('SIGTERM');
  };
  await start();
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    get running() {
      return current?.alive() ?? false;
    },
    stop,
    start,
    async restart() {
      await stop();
      await start();
    },
    async close() {
      await stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

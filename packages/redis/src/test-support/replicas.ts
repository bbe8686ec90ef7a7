/** Starts replica.mjs processes (built packages) against one Redis, and stops them. */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const REPLICA = fileURLToPath(new URL('./replica.mjs', import.meta.url));
const BUILT = fileURLToPath(new URL('../../dist/index.js', import.meta.url));

export interface Replica {
  readonly name: string;
  readonly url: string;
  readonly port: number;
  /** SIGTERM (graceful) or SIGKILL (a crash); resolves once the process is gone. */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

export function startReplica(
  redisUrl: string,
  name: string,
  options: { sessionPrefix?: string; redisPrefix?: string; retryMs?: number } = {},
): Promise<Replica> {
  if (!existsSync(BUILT)) throw new Error(`${BUILT} is missing: build the packages first (turbo run build)`);
  const child: ChildProcess = spawn(process.execPath, [REPLICA], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      REDIS_URL: redisUrl,
      NAME: name,
      SESSION_PREFIX: options.sessionPrefix ?? '',
      REDIS_PREFIX: options.redisPrefix ?? 'mcp:',
      RETRY_MS: options.retryMs === undefined ? '' : String(options.retryMs),
    },
  });
  let errors = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    errors = (errors + chunk.toString()).slice(-4_000);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  process.once('exit', () => child.kill('SIGKILL'));
  return new Promise((resolve, reject) => {
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).once('line', (line) => {
      const { url, port } = JSON.parse(line) as { url: string; port: number };
      resolve({
        name,
        url,
        port,
        async stop(signal = 'SIGTERM') {
          if (child.exitCode === null && child.signalCode === null) child.kill(signal);
          await exited;
        },
      });
    });
    child.once('exit', (code) => reject(new Error(`replica ${name} exited with ${code}: ${errors}`)));
  });
}

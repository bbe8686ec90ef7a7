/** Starts the real built agentd binary (dist/cli.js) for end-to-end tests. */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Json } from '@agentd/test-support';

export const CLI = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));

/** The environment without any AGENTD_* the developer may have set. */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('AGENTD_')) env[k] = v;
  return { ...env, ...extra };
}

export interface Agentd {
  readonly proc: ChildProcess;
  readonly dir: string;
  readonly configPath: string;
  readonly socket: string;
  readonly httpUrl: string | undefined;
  readonly stdout: string[];
  /** Parsed JSON log lines from stderr. */
  readonly logs: Json[];
  /** The first log line (from index `since` on) matching the predicate, waiting for it if needed. */
  waitForLog(
    predicate: (log: Json) => boolean,
    options?: { since?: number; timeoutMs?: number },
  ): Promise<Json>;
  writeConfig(config: Json): void;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stop(): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export interface StartOptions {
  config?: Json;
  http?: boolean;
  args?: string[];
  env?: Record<string, string>;
}

/** Runs the CLI to completion (config check, client commands). */
export function runCli(
  args: string[],
  env: NodeJS.ProcessEnv = cleanEnv(),
  stdin?: string,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const proc = spawn(process.execPath, [CLI, ...args], {
      env,
      stdio: [stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    if (stdin !== undefined) proc.stdin?.end(stdin);
    let stdout = '';
    let stderr = '';
    proc.stdout?.on('data', (c: Buffer) => {
      stdout += c.toString();
    });
    proc.stderr?.on('data', (c: Buffer) => {
      stderr += c.toString();
    });
    proc.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

export async function startAgentd(options: StartOptions = {}): Promise<Agentd> {
  const dir = mkdtempSync(join(tmpdir(), 'agentd-e2e-'));
  const configPath = join(dir, 'agentd.json');
  const socket = join(dir, 'agentd.sock');
  writeFileSync(configPath, JSON.stringify(options.config ?? {}));
  const args = [
    CLI,
    '--config',
    configPath,
    '--serve',
    `unix:${socket}`,
    ...(options.http === true ? ['--serve', 'http://127.0.0.1:0'] : []),
    ...(options.args ?? []),
  ];
  const proc = spawn(process.execPath, args, {
    env: cleanEnv({ XDG_RUNTIME_DIR: dir, XDG_STATE_HOME: dir, ...options.env }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const stdout: string[] = [];
  const logs: Json[] = [];
  const waiters: { predicate: (log: Json) => boolean; resolve: (log: Json) => void }[] = [];
  let errBuffer = '';
  proc.stderr?.setEncoding('utf8');
  proc.stderr?.on('data', (chunk: string) => {
    errBuffer += chunk;
    let nl = errBuffer.indexOf('\n');
    while (nl !== -1) {
      const line = errBuffer.slice(0, nl);
      errBuffer = errBuffer.slice(nl + 1);
      nl = errBuffer.indexOf('\n');
      let log: Json;
      try {
        log = JSON.parse(line) as Json;
      } catch {
        log = { level: 'raw', msg: line };
      }
      logs.push(log);
      for (const w of [...waiters]) {
        if (w.predicate(log)) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve(log);
        }
      }
    }
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    proc.on('exit', (code, signal) => resolve({ code, signal }));
  });
  const ready = new Promise<void>((resolve, reject) => {
    let text = '';
    proc.stdout?.setEncoding('utf8');
    proc.stdout?.on('data', (chunk: string) => {
      text += chunk;
      stdout.push(chunk);
      const extraTargets = (options.args ?? []).filter((a) => a === '--serve').length;
      const expected = 1 + (options.http === true ? 1 : 0) + extraTargets;
      const addresses = text.split('\n').filter((l) => l.startsWith('  '));
      if (text.includes('listening on:') && addresses.length >= expected) resolve();
    });
    void exited.then(({ code }) =>
      reject(new Error(`agentd exited (${code}) before listening: ${JSON.stringify(logs)}`)),
    );
  });
  await ready;
  const addresses = stdout
    .join('')
    .split('\n')
    .filter((l) => l.startsWith('  '))
    .map((l) => l.trim());
  const httpUrl = addresses.find((a) => a.startsWith('http'));
  return {
    proc,
    dir,
    configPath,
    socket,
    httpUrl,
    stdout,
    logs,
    exited,
    waitForLog(predicate, { since = 0, timeoutMs = 15_000 } = {}) {
      const seen = logs.slice(since).find(predicate);
      if (seen !== undefined) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`timed out waiting for a log line; got ${JSON.stringify(logs.slice(-5))}`)),
          timeoutMs,
        );
        waiters.push({
          predicate,
          resolve: (log) => {
            clearTimeout(timer);
            resolve(log);
          },
        });
      });
    },
    writeConfig(config) {
      // Atomic replace, as editors and config managers do.
      const tmp = `${configPath}.tmp`;
      writeFileSync(tmp, JSON.stringify(config));
      renameSync(tmp, configPath);
    },
    async stop() {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGTERM');
      return exited;
    },
  };
}

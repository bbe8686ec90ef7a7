/** Starts the built fixture (`dist/main.js`) as a child process and runs the official suite against it. */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const MAIN = fileURLToPath(new URL('../../dist/main.js', import.meta.url));
const NODE_FOR_SUITE = 'node@22.23.3';
const SUITE = '@modelcontextprotocol/conformance@0.2.0-alpha.12';

export interface FixtureProcess {
  readonly url: string;
  stop(): Promise<void>;
}

/** Runs `command args…`, resolves once it prints its `{"url": …}` line. */
export function startPrinter(
  command: string,
  args: readonly string[],
  env?: NodeJS.ProcessEnv,
  group = false,
): Promise<FixtureProcess> {
  const child: ChildProcess = spawn(command, args, {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
    detached: group,
  });
  let errors = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    errors += chunk.toString();
  });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (line === undefined) return;
      const { url } = JSON.parse(line) as { url: string };
      resolve({
        url,
        async stop() {
          if (child.exitCode !== null || child.signalCode !== null) return;
          const exited = new Promise((done) => child.once('exit', done));
          if (group && child.pid !== undefined) process.kill(-child.pid, 'SIGTERM');
          else child.kill('SIGTERM');
          await exited;
        },
      });
    });
    child.once('error', reject);
    child.once('exit', (code) =>
      reject(new Error(`${command} exited early with ${code}: ${errors.slice(-2_000)}`)),
    );
  });
}

export function startFixture(adapter: 'node' | 'fetch' | 'express' = 'node'): Promise<FixtureProcess> {
  if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: run \`turbo run build\` first`);
  return startPrinter(process.execPath, [MAIN, '--port', '0', '--adapter', adapter]);
}

/**
 * The official suite, pinned, on Node 22 through npx, as `conformance server --url URL …args`:
 * exit code and combined output. The first run downloads Node 22 and the suite.
 */
export function runSuite(
  url: string,
  args: readonly string[],
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      'npx',
      ['-y', '-p', NODE_FOR_SUITE, '-p', SUITE, 'conformance', 'server', '--url', url, ...args],
      { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, npm_config_update_notifier: 'false' } },
    );
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code, output }));
  });
}

export function summary(output: string): string {
  const at = output.lastIndexOf('=== SUMMARY ===');
  return at === -1 ? output.slice(-6_000) : output.slice(at);
}

/**
 * The suite runs the whole test set twice (Node 20, then Node 24 LTS); process-level runs that
 * only need one Node (other adapters, other runtimes) run on the machine's own Node 20 line.
 */
export const PRIMARY_NODE_RUN = process.versions.node.startsWith('20.');

/** Spawns one server process (dist/serve.js) and reads its CPU time and peak RSS from /proc. */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { fileURLToPath } from 'node:url';
import type { ChildTransport, Impl } from '../servers/launch.js';
import { bunBinary } from './bun-binary.js';
import type { Endpoint } from './sessions.js';

const SERVE_JS = fileURLToPath(new URL('../serve.js', import.meta.url));
const CLOCK_TICKS_PER_SECOND = 100;

export interface SpawnOptions {
  readonly socketPath: string;
  /** Directory for `--cpu-prof` output, or undefined for no profile. */
  readonly profileDir?: string | undefined;
}

function waitExit(proc: ChildProcess, ms: number): Promise<boolean> {
  if (proc.exitCode !== null || proc.signalCode !== null) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    proc.once('exit', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

export class ServerChild {
  readonly proc: ChildProcess;
  readonly #transport: ChildTransport;
  readonly #socketPath: string;
  #stderr = '';

  constructor(impl: Impl, transport: ChildTransport, options: SpawnOptions) {
    this.#transport = transport;
    this.#socketPath = options.socketPath;
    const flags =
      options.profileDir === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${options.profileDir}`];
    // Bun cases run the same entry under the bun binary (no Node profiler flags there).
    const runtime = impl === 'agentd-bun' ? bunBinary() : process.execPath;
    this.proc = spawn(
      runtime,
      [...(impl === 'agentd-bun' ? [] : flags), SERVE_JS, impl, transport, options.socketPath],
      {
        stdio: ['pipe', 'pipe', 'pipe'],
      },
    );
    this.proc.stderr?.setEncoding('utf8');
    this.proc.stderr?.on('data', (chunk: string) => {
      this.#stderr = (this.#stderr + chunk).slice(-4_000);
    });
  }

  get stderrTail(): string {
    return this.#stderr;
  }

  /** Where to talk to the server, once it is ready (stdio: at once). */
  async endpoint(): Promise<Endpoint> {
    const stdout = this.proc.stdout;
    const stdin = this.proc.stdin;
    if (stdout === null || stdin === null) throw new Error('child without stdio pipes');
    if (this.#transport === 'stdio') return { kind: 'streams', input: stdout, output: stdin };
    const ready = await this.#readyLine(stdout);
    if (this.#transport === 'unix') {
      const socket = connect(this.#socketPath);
      await new Promise<void>((resolve, reject) => {
        socket.once('connect', resolve);
        socket.once('error', reject);
      });
      return { kind: 'streams', input: socket, output: socket };
    }
    if (typeof ready.port !== 'number') throw new Error('HTTP server reported no port');
    return { kind: 'http', port: ready.port };
  }

  #readyLine(stdout: NodeJS.ReadableStream): Promise<{ port?: number }> {
    return new Promise((resolve, reject) => {
      let buffered = '';
      const onData = (chunk: Buffer | string) => {
        buffered += chunk.toString();
        const newline = buffered.indexOf('\n');
        if (newline === -1) return;
        stdout.off('data', onData);
        resolve(JSON.parse(buffered.slice(0, newline)) as { port?: number });
      };
      stdout.on('data', onData);
      this.proc.once('exit', (code) =>
        reject(new Error(`server exited (${code}) before ready: ${this.#stderr.slice(-500)}`)),
      );
    });
  }

  /** User + system CPU seconds so far (all threads). */
  cpuSeconds(): number {
    const stat = readFileSync(`/proc/${this.proc.pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND;
  }

  /** Peak resident set (VmHWM) in MB. */
  peakRssMb(): number {
    const status = readFileSync(`/proc/${this.proc.pid}/status`, 'utf8');
    const match = /VmHWM:\s+(\d+) kB/.exec(status);
    return match === null ? Number.NaN : Number(match[1]) / 1024;
  }

  /** Ends stdin (stdio servers exit on EOF), then SIGTERM, then SIGKILL. */
  async stop(): Promise<void> {
    if (this.#transport === 'stdio') {
      this.proc.stdin?.end();
      if (await waitExit(this.proc, 3_000)) return;
    }
    this.proc.kill('SIGTERM');
    if (await waitExit(this.proc, 3_000)) return;
    this.proc.kill('SIGKILL');
    await waitExit(this.proc, 3_000);
  }
}

/** A child process the harness owns: its stderr tail for errors, a clean stop, and a kill when the test process exits. */
import { type ChildProcess, spawn } from 'node:child_process';

const live = new Set<ChildProcess>();
let hooked = false;

function hookExit(): void {
  if (hooked) return;
  hooked = true;
  // A crashed test must not leave redis-server or nginx running on the machine.
  process.once('exit', () => {
    for (const child of live) child.kill('SIGKILL');
  });
}

export interface ManagedProcess {
  readonly child: ChildProcess;
  alive(): boolean;
  /** The last few KB of stdout+stderr, for error messages. */
  output(): string;
  /** Sends `signal` and resolves when the process has exited (SIGKILL after `graceMs`). */
  stop(signal?: NodeJS.Signals, graceMs?: number): Promise<void>;
}

export function startManaged(command: string, args: readonly string[], cwd: string): ManagedProcess {
  hookExit();
  const child = spawn(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  live.add(child);
  let tail = '';
  const keep = (chunk: Buffer) => {
    tail = (tail + chunk.toString()).slice(-4_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<void>((resolve) => {
    child.once('exit', () => {
      live.delete(child);
      resolve();
    });
    child.once('error', (error) => {
      tail += `\n${String(error)}`;
      live.delete(child);
      resolve();
    });
  });
  const alive = () => child.exitCode === null && child.signalCode === null && live.has(child);
  return {
    child,
    alive,
    output: () => tail,
    async stop(signal = 'SIGTERM', graceMs = 5_000) {
      if (!alive()) return;
      child.kill(signal);
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** One child process in its own process group: start, stderr tail, exit, and whole-tree kill. */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { traceEnv } from '../telemetry/trace-env.js';
import { ByteTail } from './byte-tail.js';
import type { AgentProfile } from './types.js';

export interface ChildExit {
  exitCode: number | null;
  signal: string | null;
  /** Set when the command could not be started at all. */
  spawnError?: string;
  stderrTail: string;
}

export interface ChildHostOptions {
  stderrTailBytes: number;
  killGraceMs: number;
}

/** Environment variables a child gets even when the profile does not inherit the daemon's. */
const MINIMAL_ENV = ['PATH', 'HOME', 'LANG', 'TZ', 'TMPDIR', 'SYSTEMROOT'];

function childEnv(profile: AgentProfile): NodeJS.ProcessEnv {
  const base: NodeJS.ProcessEnv = {};
  if (profile.inheritEnv === false) {
    for (const name of MINIMAL_ENV) {
      const value = process.env[name];
      if (value !== undefined) base[name] = value;
    }
  } else {
    Object.assign(base, process.env);
  }
  // The spawning request's trace context replaces any the daemon inherited; the profile's env wins.
  return { ...base, ...traceEnv(), ...profile.env };
}

/** Sends `signal` to the whole process group led by `pid`; false when the group is gone. */
function signalGroup(pid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pid, signal);
    return true;
  } catch {
    return false;
  }
}

/** Process groups still led by a live child: killed if the daemon exits without cleaning up. */
const liveGroups = new Set<number>();
let exitHookInstalled = false;

function trackGroup(pid: number): void {
  liveGroups.add(pid);
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const group of liveGroups) signalGroup(group, 'SIGKILL');
  });
}

export class ChildHost {
  readonly child: ChildProcessWithoutNullStreams;
  /** Resolves once the leader exited and its stdio closed (bounded by the kill grace). */
  readonly exited: Promise<ChildExit>;
  /** Resolves true once the OS started the command, false if it could not. */
  readonly started: Promise<boolean>;
  private readonly tail: ByteTail;
  private leaderExited = false;
  private killTimer: NodeJS.Timeout | undefined;

  constructor(
    profile: AgentProfile,
    private readonly options: ChildHostOptions,
  ) {
    this.tail = new ByteTail(options.stderrTailBytes);
    // detached: the child leads a new process group, so one signal reaches every descendant.
    this.child = spawn(profile.command, profile.args ?? [], {
      cwd: profile.cwd,
      env: childEnv(profile),
      detached: true,
      stdio: ['pipe', 'pipe', 'pipe'],
      windowsHide: true,
    });
    if (this.child.pid !== undefined) trackGroup(this.child.pid);
    this.child.stderr.on('data', (chunk: Buffer) => this.tail.push(chunk));
    // A child that exits without reading its stdin makes our writes fail with EPIPE: not our error.
    // No stream or process error of a child may ever become an uncaught 'error' in the daemon.
    for (const emitter of [this.child, this.child.stdin, this.child.stdout, this.child.stderr]) {
      emitter.on('error', () => {});
    }
    this.started = new Promise((resolve) => {
      this.child.once('spawn', () => resolve(true));
      this.child.once('error', () => resolve(false));
    });
    this.exited = new Promise((resolve) => this.watchExit(resolve));
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get alive(): boolean {
    return this.child.pid !== undefined && !this.leaderExited;
  }

  /** SIGTERM to the group, SIGKILL after the grace period; resolves when the leader is gone. */
  kill(): Promise<ChildExit> {
    const pid = this.child.pid;
    if (pid !== undefined && !this.leaderExited && this.killTimer === undefined) {
      signalGroup(pid, 'SIGTERM');
      this.killTimer = setTimeout(() => signalGroup(pid, 'SIGKILL'), this.options.killGraceMs);
    }
    return this.exited;
  }

  /** Closes stdin (the polite "please exit"), then kills the group if it is still there after the grace. */
  shutdown(): Promise<ChildExit> {
    this.child.stdin.end();
    if (this.leaderExited || this.child.pid === undefined) return this.exited;
    const timer = setTimeout(() => void this.kill(), this.options.killGraceMs);
    void this.exited.then(() => clearTimeout(timer));
    return this.exited;
  }

  private watchExit(resolve: (exit: ChildExit) => void): void {
    let spawnError: string | undefined;
    let settled = false;
    const finish = (exitCode: number | null, signal: string | null): void => {
      if (settled) return;
      settled = true;
      if (this.killTimer !== undefined) clearTimeout(this.killTimer);
      const exit: ChildExit = { exitCode, signal, stderrTail: this.tail.text() };
      if (spawnError !== undefined) exit.spawnError = spawnError;
      resolve(exit);
    };
    this.child.once('error', (error) => {
      if (this.child.pid !== undefined) return; // a later error (e.g. kill failure) is not a spawn failure
      spawnError = error.message;
      this.leaderExited = true;
      finish(null, null);
    });
    this.child.once('exit', (exitCode, signal) => {
      this.leaderExited = true;
      const pid = this.child.pid;
      // The run's process group never outlives its leader: leftovers would hold stdio open and leak.
      if (pid !== undefined) {
        signalGroup(pid, 'SIGKILL');
        liveGroups.delete(pid);
      }
      const streamsClosed = new Promise<void>((done) => {
        if (this.child.stdout.closed && this.child.stderr.closed) done();
        else this.child.once('close', () => done());
      });
      // A descendant that escaped the group may still hold a pipe: stop waiting after the grace.
      const grace = new Promise<void>((done) => setTimeout(done, this.options.killGraceMs).unref());
      void Promise.race([streamsClosed, grace]).then(() => {
        this.child.stdout.destroy();
        this.child.stderr.destroy();
        finish(exitCode, signal);
      });
    });
  }
}

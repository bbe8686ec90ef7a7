/** One sandbox worker thread as seen from the main thread: its executions and its hard kill. */
import { Worker } from 'node:worker_threads';
import {
  CONTROL_HANDLED,
  CONTROL_NOTIFY,
  CONTROL_POSTED,
  CONTROL_RECEIVED,
  CONTROL_SINCE,
  CONTROL_SLOTS,
} from './execution-codes.js';
import type { CompiledModule } from './wasm-module.js';
import type { FromWorker, ToWorker } from './worker-protocol.js';

/** Resolved in the source tree (vitest) and in `dist` alike: the worker is plain JavaScript. */
const WORKER_URL = new URL('./sandbox-worker.js', import.meta.url);

export interface WorkerSlotOptions {
  wasmModule: CompiledModule;
  /** The worker script (default: `sandbox-worker.js` beside this module). */
  workerUrl?: URL | string | undefined;
  defaultMemoryBytes: number;
  /** The scheduling lane this worker serves for its whole life. Default 'standard'. */
  lane?: 'priority' | 'standard';
  /** OS niceness the thread lowers itself to (Linux), 0 = unchanged. Default 0. */
  nice?: number;
  onMessage: (slot: WorkerSlot, message: FromWorker) => void;
  /** The thread is gone (killed or crashed); every execution still on it is lost. */
  onExit: (slot: WorkerSlot, lost: number[]) => void;
}

export class WorkerSlot {
  readonly #worker: Worker;
  readonly #options: WorkerSlotOptions;
  readonly lane: 'priority' | 'standard';
  /** Why the thread died, when it died of an uncaught error. */
  failure: string | undefined;
  /** Executions the worker is running (until it reports them done). */
  readonly active = new Set<number>();
  /** Shared with the worker: wakes posted, wakes handled, notify flag (see execution-codes.js). */
  readonly #control = new Int32Array(new SharedArrayBuffer(CONTROL_SLOTS * 4));
  #posted = 0;
  readonly #epoch = Math.floor(performance.timeOrigin);
  #alive = true;
  #accepting = true;
  #stopTimers = new Map<number, NodeJS.Timeout>();

  constructor(options: WorkerSlotOptions) {
    this.#options = options;
    this.lane = options.lane ?? 'standard';
    this.#worker = new Worker(options.workerUrl ?? WORKER_URL, {
      workerData: {
        wasmModule: options.wasmModule,
        defaultMemoryBytes: options.defaultMemoryBytes,
        control: this.#control,
        epoch: this.#epoch,
        nice: options.nice ?? 0,
      },
      // The parent's flags (e.g. --input-type from `node -e`) can stop a worker from loading.
      execArgv: [],
      // QuickJS's own 256 KiB stack limit trips well inside 4 MiB; builtins that recurse without
      // checking it overflow the native stack quickly instead, which only loses that instance.
      resourceLimits: { stackSizeMb: 4, maxOldGenerationSizeMb: 512 },
    });
    this.#worker.unref();
    this.#worker.on('message', (message: FromWorker) => {
      if (message.type === 'done') this.#settled(message.execId);
      options.onMessage(this, message);
    });
    this.#worker.on('error', (error) => {
      // The exit event follows and reports the loss; keep why for the message.
      this.failure = error instanceof Error ? error.message : String(error);
    });
    this.#worker.on('exit', () => this.#exited());
  }

  /** False once the thread is being terminated or has exited. */
  get alive(): boolean {
    return this.#accepting && this.#alive;
  }

  /** Alive and not waiting for a stopped execution to unwind (it may be about to be terminated). */
  get accepting(): boolean {
    return this.alive && this.#stopTimers.size === 0;
  }

  /**
   * True while the worker runs guest code or has a wake (run, reply) it has not handled yet: an
   * execution placed here would wait for it. Executions that all wait on host calls do not count.
   */
  get computing(): boolean {
    return this.active.size > 0 && Atomics.load(this.#control, CONTROL_HANDLED) < this.#posted;
  }

  /**
   * How long the worker has been on its current wake, in ms; 0 when it has not started the ones
   * posted to it yet (it is about to), -1 when it is not computing. A long one is a CPU hog.
   */
  computingFor(): number {
    if (!this.computing) return -1;
    if (Atomics.load(this.#control, CONTROL_RECEIVED) <= Atomics.load(this.#control, CONTROL_HANDLED))
      return 0;
    const now = Math.floor(performance.timeOrigin + performance.now() - this.#epoch);
    return Math.max(0, now - Atomics.load(this.#control, CONTROL_SINCE));
  }

  /**
   * While on, the worker posts `parked` whenever it has handled every wake posted to it. Returns
   * whether it is computing, read after the flag is set so a transition is never missed.
   */
  notify(on: boolean): boolean {
    Atomics.store(this.#control, CONTROL_NOTIFY, on ? 1 : 0);
    return this.computing;
  }

  run(message: ToWorker & { type: 'run' }): void {
    this.active.add(message.execId);
    this.#worker.ref();
    this.#post(message);
  }

  post(message: ToWorker): void {
    this.#post(message);
  }

  /**
   * Asks the worker to stop an execution whose stop flag is already set; if it has not reported
   * within `graceMs` (stuck in a native builtin), the thread is terminated and replaced.
   */
  stop(execId: number, graceMs: number): void {
    if (!this.active.has(execId) || this.#stopTimers.has(execId)) return;
    this.#post({ type: 'stop', execId });
    const timer = setTimeout(() => this.kill(), graceMs);
    timer.unref();
    this.#stopTimers.set(execId, timer);
  }

  /** Terminates the thread; its executions are reported lost at once, not when the thread is gone. */
  kill(): Promise<number> {
    this.#accepting = false;
    const terminated = this.#worker.terminate();
    this.#exited();
    return terminated;
  }

  #post(message: ToWorker): void {
    if (!this.#alive) return;
    if (message.type !== 'stop') {
      // Counted before posting, so the worker never sees more handled than posted.
      this.#posted += 1;
      Atomics.store(this.#control, CONTROL_POSTED, this.#posted);
    }
    this.#worker.postMessage(message);
  }

  #settled(execId: number): void {
    this.active.delete(execId);
    const timer = this.#stopTimers.get(execId);
    if (timer !== undefined) {
      clearTimeout(timer);
      this.#stopTimers.delete(execId);
    }
    if (this.active.size === 0) this.#worker.unref();
  }

  #exited(): void {
    if (!this.#alive) return;
    this.#alive = false;
    for (const timer of this.#stopTimers.values()) clearTimeout(timer);
    this.#stopTimers.clear();
    const lost = [...this.active];
    this.active.clear();
    this.#options.onExit(this, lost);
  }
}

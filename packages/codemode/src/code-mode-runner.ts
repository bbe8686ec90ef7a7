/** Runs `execute` scripts off the main thread in a small pool of QuickJS worker threads that overflows around CPU hogs. */
import { availableParallelism } from 'node:os';
import type { CallContext, ExecuteErrorCodeValue, ExecuteOutcome, ExecuteRequest } from './execute-types.js';
import { ExecuteErrorCode, STOP_ABORTED, STOP_WALL_CLOCK } from './execution-codes.js';
import { buildMethodTable } from './method-table.js';
import { checkNamespace } from './namespace.js';
import type { SandboxLimits } from './sandbox-limits.js';
import { resolveLimits } from './sandbox-limits.js';
import { type CompiledModule, type QuickJsWasm, quickJsModule } from './wasm-module.js';
import type { CallMessage, FromWorker, RunMessage, WorkerOutcome } from './worker-protocol.js';
import { WorkerSlot } from './worker-slot.js';

export interface CodeModeRunnerOptions {
  /** Worker threads kept (default: available parallelism, clamped to 2–4). */
  workers?: number;
  /**
   * Upper bound on threads, overflow included (default 8, at least `workers`). An execution never
   * joins a worker that is computing; when every worker is, an overflow thread is started, and
   * once this bound is reached the execution waits in the queue instead.
   */
  maxWorkers?: number;
  /** How long an overflow thread may sit idle before it is terminated (default 1000 ms). */
  overflowIdleMs?: number;
  /**
   * How long the busy workers must have been computing before an overflow thread is started
   * (default 50 ms): a burst of short scripts waits its turn instead of starting threads.
   */
  overflowAfterMs?: number;
  /** Defaults for every execution; each request may override them. */
  limits?: Partial<SandboxLimits>;
  /** Executions running at once on one worker; more wait in the queue (default 8). Worst-case sandbox memory is maxWorkers × this × memoryBytes. */
  maxConcurrentPerWorker?: number;
  /** Executions waiting for a worker; beyond it `execute` answers `busy` (default 1000). */
  maxQueued?: number;
  /** How long a stopped execution may take to unwind before its worker is terminated (default 1000 ms). */
  stopGraceMs?: number;
  /**
   * The QuickJS WebAssembly module: compiled, its bytes, or its file (path or `file:` URL).
   * Default: the file of `@jitl/quickjs-wasmfile-release-sync`, found through `node_modules`;
   * a bundled server passes it (README, "Bundling").
   */
  wasm?: QuickJsWasm;
  /**
   * The sandbox worker script (`@agentd/codemode/sandbox-worker`). Default: `sandbox-worker.js`
   * beside this module, which in a bundle means beside the bundle.
   */
  workerUrl?: URL | string;
}

interface Pending {
  execId: number;
  request: ExecuteRequest;
  limits: SandboxLimits;
  message: Omit<RunMessage, 'wallMs'>;
  deadline: number;
  resolve: (outcome: ExecuteOutcome) => void;
  calls: AbortController;
  slot: WorkerSlot | undefined;
  settled: boolean;
  cleanup: () => void;
}

function failure(code: ExecuteErrorCodeValue, message: string, logs: string[] = []): ExecuteOutcome {
  return { ok: false, error: { code, message }, logs };
}

/** Longest error message passed back into the guest. */
const MAX_ERROR_CHARS = 4096;

function errorMessage(thrown: unknown): string {
  const message =
    thrown instanceof Error ? thrown.message : typeof thrown === 'string' ? thrown : 'Operation failed';
  return message.length > MAX_ERROR_CHARS ? `${message.slice(0, MAX_ERROR_CHARS)}…` : message;
}

function errorCode(thrown: unknown): string | undefined {
  const code = (thrown as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

export class CodeModeRunner {
  readonly #limits: SandboxLimits;
  readonly #workers: number;
  readonly #maxWorkers: number;
  readonly #idleMs: number;
  readonly #afterMs: number;
  readonly #idleTimers = new Map<WorkerSlot, NodeJS.Timeout>();
  #retry: NodeJS.Timeout | undefined;
  #notifying = false;
  readonly #perWorker: number;
  readonly #maxQueued: number;
  readonly #graceMs: number;
  readonly #wasm: QuickJsWasm | undefined;
  readonly #workerUrl: URL | string | undefined;
  readonly #slots: WorkerSlot[] = [];
  readonly #queue: Pending[] = [];
  readonly #byId = new Map<number, Pending>();
  #nextId = 1;
  #closed = false;
  #restarts = 0;
  #rotation = 0;

  constructor(options: CodeModeRunnerOptions = {}) {
    this.#limits = resolveLimits(options.limits);
    this.#workers = Math.max(
      1,
      Math.floor(options.workers ?? Math.min(4, Math.max(2, availableParallelism()))),
    );
    this.#maxWorkers = Math.max(this.#workers, Math.floor(options.maxWorkers ?? 8));
    this.#idleMs = Math.max(0, options.overflowIdleMs ?? 1000);
    this.#afterMs = Math.max(0, options.overflowAfterMs ?? 50);
    this.#perWorker = Math.max(1, Math.floor(options.maxConcurrentPerWorker ?? 8));
    this.#maxQueued = Math.max(0, Math.floor(options.maxQueued ?? 1000));
    this.#graceMs = Math.max(0, options.stopGraceMs ?? 1000);
    this.#wasm = options.wasm;
    this.#workerUrl = options.workerUrl;
  }

  /** The limits every execution starts from. */
  get limits(): Readonly<SandboxLimits> {
    return this.#limits;
  }

  /**
   * Runs one script. Resolves with its value or a coded error; never rejects for anything the
   * script does. Throws `invalid_namespace` / `invalid_limits` (LocalError) for a bad request.
   */
  async execute(request: ExecuteRequest): Promise<ExecuteOutcome> {
    const namespace = checkNamespace(request.namespace);
    const limits = resolveLimits(this.#limits, request.limits);
    if (this.#closed) return failure(ExecuteErrorCode.Closed, 'The Code Mode runner is closed');
    if (typeof request.code !== 'string')
      return failure(ExecuteErrorCode.SyntaxError, 'code must be a string');
    if (request.code.length > limits.maxCodeBytes) {
      return failure(
        ExecuteErrorCode.CodeTooLarge,
        `code is ${request.code.length} characters (limit ${limits.maxCodeBytes})`,
      );
    }
    if (request.signal?.aborted) return failure(ExecuteErrorCode.Aborted, 'Execution aborted');
    if (this.#queue.length >= this.#maxQueued) {
      return failure(ExecuteErrorCode.Busy, 'Too many Code Mode executions are waiting; try again shortly');
    }
    const execId = this.#nextId++;
    const deadline = performance.now() + limits.wallMs;
    const message: Omit<RunMessage, 'wallMs'> = {
      type: 'run',
      execId,
      code: request.code,
      namespace,
      methods: buildMethodTable(request.operations),
      limits: {
        cpuMs: limits.cpuMs,
        memoryBytes: limits.memoryBytes,
        maxCalls: limits.maxCalls,
        maxArgBytes: limits.maxArgBytes,
        maxResultBytes: limits.maxResultBytes,
        maxLogLines: limits.maxLogLines,
        maxLogLineBytes: limits.maxLogLineBytes,
      },
      stop: new Int32Array(new SharedArrayBuffer(4)),
    };
    return new Promise<ExecuteOutcome>((resolve) => {
      const pending: Pending = {
        execId,
        request,
        limits,
        message,
        deadline,
        resolve,
        calls: new AbortController(),
        slot: undefined,
        settled: false,
        cleanup: () => {},
      };
      const onAbort = () =>
        this.#end(pending, failure(ExecuteErrorCode.Aborted, 'Execution aborted'), STOP_ABORTED);
      const wall = setTimeout(
        () =>
          this.#end(
            pending,
            failure(
              ExecuteErrorCode.WallClock,
              `Script exceeded its wall-clock limit of ${limits.wallMs} ms`,
            ),
            STOP_WALL_CLOCK,
          ),
        limits.wallMs,
      );
      request.signal?.addEventListener('abort', onAbort, { once: true });
      pending.cleanup = () => {
        clearTimeout(wall);
        request.signal?.removeEventListener('abort', onAbort);
      };
      this.#byId.set(execId, pending);
      this.#queue.push(pending);
      void this.#schedule();
    });
  }

  /** A snapshot for health checks and metrics. */
  stats(): { workers: number; running: number; queued: number; workerRestarts: number } {
    const running = this.#slots.reduce((sum, slot) => sum + slot.active.size, 0);
    return {
      workers: this.#slots.length,
      running,
      queued: this.#queue.length,
      workerRestarts: this.#restarts,
    };
  }

  /** Ends every execution with `closed` and terminates the workers. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const pending of [...this.#byId.values()]) {
      this.#end(pending, failure(ExecuteErrorCode.Closed, 'The Code Mode runner was closed'), STOP_ABORTED);
    }
    for (const timer of this.#idleTimers.values()) clearTimeout(timer);
    this.#idleTimers.clear();
    clearTimeout(this.#retry);
    const slots = this.#slots.splice(0);
    await Promise.all(slots.map((slot) => slot.kill()));
  }

  /** Starts queued executions on workers that are not computing, creating threads as `#pickSlot` allows. */
  async #schedule(): Promise<void> {
    if (this.#queue.length === 0) {
      this.#setNotify(false);
      return;
    }
    let wasmModule: CompiledModule;
    try {
      wasmModule = await quickJsModule(this.#wasm);
    } catch (thrown) {
      for (const pending of this.#queue.splice(0)) {
        this.#end(
          pending,
          failure(ExecuteErrorCode.SandboxError, `QuickJS failed to load: ${errorMessage(thrown)}`),
        );
      }
      return;
    }
    while (this.#queue.length > 0 && !this.#closed) {
      const slot = this.#pickSlot(wasmModule) ?? this.#waitForQuietWorker(wasmModule);
      if (slot === undefined) return;
      const pending = this.#queue.shift() as Pending;
      if (pending.settled) continue;
      pending.slot = slot;
      this.#cancelRetire(slot);
      slot.run({ ...pending.message, wallMs: Math.max(0, pending.deadline - performance.now()) });
    }
    this.#setNotify(false);
  }

  /**
   * Every worker is computing or full: ask the workers to report going quiet, then look once more
   * (a worker that went quiet before it saw the request is found by this second look).
   */
  #waitForQuietWorker(wasmModule: CompiledModule): WorkerSlot | undefined {
    if (this.#closed) return undefined;
    this.#setNotify(true);
    return this.#pickSlot(wasmModule);
  }

  #setNotify(on: boolean): void {
    if (this.#notifying === on) return;
    this.#notifying = on;
    for (const slot of this.#slots) slot.notify(on);
  }

  /**
   * The least-loaded worker with room that is not computing (a script there would wait for the one
   * computing); else a new thread: up to `workers` always, up to `maxWorkers` when the workers with
   * room have all been computing for `overflowAfterMs` (CPU hogs). Undefined means wait in the queue.
   */
  #pickSlot(wasmModule: CompiledModule): WorkerSlot | undefined {
    let best: WorkerSlot | undefined;
    // How long the most recently busied worker with room has been computing.
    let youngest = Number.POSITIVE_INFINITY;
    // Rotate among equally loaded workers: the one used last is still preparing its next instance.
    const count = this.#slots.length;
    for (let i = 0; i < count; i++) {
      const slot = this.#slots[(this.#rotation + i) % count] as WorkerSlot;
      if (!slot.accepting || slot.active.size >= this.#perWorker) continue;
      const computingFor = slot.computingFor();
      if (computingFor >= 0) {
        youngest = Math.min(youngest, computingFor);
        continue;
      }
      if (best === undefined || slot.active.size < best.active.size) best = slot;
    }
    if (best !== undefined) this.#rotation = (this.#slots.indexOf(best) + 1) % Math.max(1, count);
    if (best !== undefined && best.active.size === 0) return best;
    const alive = this.#slots.filter((slot) => slot.alive).length;
    if (alive < this.#workers) return this.#spawn(wasmModule);
    if (best !== undefined) return best;
    if (youngest === Number.POSITIVE_INFINITY || alive >= this.#maxWorkers) return undefined;
    if (youngest >= this.#afterMs) return this.#spawn(wasmModule);
    this.#retryIn(this.#afterMs - youngest);
    return undefined;
  }

  /** Looks at the queue again once a busy worker would count as a CPU hog. */
  #retryIn(ms: number): void {
    if (this.#retry !== undefined) return;
    this.#retry = setTimeout(
      () => {
        this.#retry = undefined;
        void this.#schedule();
      },
      Math.max(1, ms),
    );
    this.#retry.unref();
  }

  #spawn(wasmModule: CompiledModule): WorkerSlot {
    const slot = new WorkerSlot({
      wasmModule,
      workerUrl: this.#workerUrl,
      defaultMemoryBytes: this.#limits.memoryBytes,
      onMessage: (from, message) => this.#onMessage(from, message),
      onExit: (from, lost) => this.#onExit(from, lost),
    });
    if (this.#notifying) slot.notify(true);
    this.#slots.push(slot);
    return slot;
  }

  /** An idle worker beyond `workers` is terminated once it has stayed idle for `overflowIdleMs`. */
  #retireWhenIdle(slot: WorkerSlot): void {
    if (slot.active.size > 0 || this.#idleTimers.has(slot) || this.#closed) return;
    if (this.#slots.filter((one) => one.alive).length <= this.#workers) return;
    const timer = setTimeout(() => {
      this.#idleTimers.delete(slot);
      if (slot.active.size > 0 || this.#slots.filter((one) => one.alive).length <= this.#workers) return;
      const index = this.#slots.indexOf(slot);
      if (index < 0) return;
      // Out of the pool first, so its exit is not counted as a restart.
      this.#slots.splice(index, 1);
      void slot.kill();
    }, this.#idleMs);
    timer.unref();
    this.#idleTimers.set(slot, timer);
  }

  #cancelRetire(slot: WorkerSlot): void {
    const timer = this.#idleTimers.get(slot);
    if (timer === undefined) return;
    clearTimeout(timer);
    this.#idleTimers.delete(slot);
  }

  #onMessage(slot: WorkerSlot, message: FromWorker): void {
    if (message.type === 'parked') {
      void this.#schedule();
      return;
    }
    const pending = this.#byId.get(message.execId);
    if (message.type === 'done') {
      if (pending !== undefined) this.#end(pending, this.#outcome(message.outcome));
      void this.#schedule().then(() => this.#retireWhenIdle(slot));
      return;
    }
    if (pending === undefined || pending.settled) return;
    void this.#call(slot, pending, message);
  }

  /** Runs one host call through the request's bridge and answers the worker with an envelope. */
  async #call(slot: WorkerSlot, pending: Pending, message: CallMessage): Promise<void> {
    let envelope: string;
    try {
      const args: unknown = JSON.parse(message.args);
      const context: CallContext = { signal: pending.calls.signal };
      const value = await pending.request.call(message.kind, message.id, args, context);
      const json = JSON.stringify(value === undefined ? null : value);
      const bytes = Buffer.byteLength(json, 'utf8');
      envelope =
        bytes > pending.limits.maxCallResultBytes
          ? JSON.stringify({
              error: `Result of ${message.kind}_${message.id} is too large (${bytes} bytes, limit ${pending.limits.maxCallResultBytes})`,
            })
          : `{"value":${json}}`;
    } catch (thrown) {
      const code = errorCode(thrown);
      envelope = JSON.stringify(
        code === undefined ? { error: errorMessage(thrown) } : { error: errorMessage(thrown), code },
      );
    }
    if (pending.settled) return;
    slot.post({ type: 'reply', execId: pending.execId, callId: message.callId, envelope });
  }

  #outcome(outcome: WorkerOutcome): ExecuteOutcome {
    if (!outcome.ok)
      return failure(outcome.error.code as ExecuteErrorCodeValue, outcome.error.message, outcome.logs);
    try {
      return { ok: true, value: JSON.parse(outcome.value), logs: outcome.logs, truncated: outcome.truncated };
    } catch {
      return failure(ExecuteErrorCode.SandboxError, 'The sandbox returned malformed JSON', outcome.logs);
    }
  }

  #onExit(slot: WorkerSlot, lost: number[]): void {
    this.#cancelRetire(slot);
    const index = this.#slots.indexOf(slot);
    if (index < 0) return;
    this.#slots.splice(index, 1);
    if (!this.#closed) this.#restarts += 1;
    for (const execId of lost) {
      const pending = this.#byId.get(execId);
      if (pending !== undefined) {
        this.#end(
          pending,
          failure(
            ExecuteErrorCode.SandboxError,
            `The sandbox worker stopped${slot.failure === undefined ? '' : ` (${slot.failure})`}; the execution was lost`,
          ),
        );
      }
    }
    void this.#schedule();
  }

  /** Settles an execution once; with a stop flag, tells its worker to unwind it. */
  #end(pending: Pending, outcome: ExecuteOutcome, stopFlag?: number): void {
    if (pending.settled) return;
    pending.settled = true;
    pending.cleanup();
    pending.calls.abort();
    this.#byId.delete(pending.execId);
    const queued = this.#queue.indexOf(pending);
    if (queued >= 0) this.#queue.splice(queued, 1);
    const slot = pending.slot;
    if (stopFlag !== undefined && slot?.active.has(pending.execId)) {
      Atomics.store(pending.message.stop, 0, stopFlag);
      slot.stop(pending.execId, this.#graceMs);
    }
    pending.resolve(outcome);
  }
}

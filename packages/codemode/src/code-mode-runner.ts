/** Runs `execute` scripts off the main thread in a small pool of QuickJS worker threads that overflows around CPU hogs. */
import { availableParallelism } from 'node:os';
import type { Context } from '@opentelemetry/api';
import { captureTraceContext, traceHostCall } from './call-telemetry.js';
import { errorCode, errorMessage, failure } from './execute-failure.js';
import type { CallContext, ExecuteErrorCodeValue, ExecuteOutcome, ExecuteRequest } from './execute-types.js';
import {
  EXEC_CPU_MS,
  EXEC_SLOTS,
  ExecuteErrorCode,
  STOP_ABORTED,
  STOP_WALL_CLOCK,
} from './execution-codes.js';
import { FairQueue } from './fair-queue.js';
import { buildMethodTable } from './method-table.js';
import { checkNamespace } from './namespace.js';
import type { CodeModeRunnerOptions } from './runner-options.js';
import type { SandboxLimits } from './sandbox-limits.js';
import { resolveLimits } from './sandbox-limits.js';
import { type CompiledModule, type QuickJsWasm, quickJsModule } from './wasm-module.js';
import type { CallMessage, FromWorker, RunMessage, WorkerOutcome } from './worker-protocol.js';
import { WorkerSlot } from './worker-slot.js';

export type { CodeModeRunnerOptions } from './runner-options.js';

interface Pending {
  execId: number;
  readonly principal: string;
  readonly priority: boolean;
  request: ExecuteRequest;
  limits: SandboxLimits;
  message: Omit<RunMessage, 'wallMs'>;
  deadline: number;
  resolve: (outcome: ExecuteOutcome) => void;
  calls: AbortController;
  slot: WorkerSlot | undefined;
  settled: boolean;
  cleanup: () => void;
  started: () => void;
  /** Guest CPU ms used so far, as its worker keeps it current (charged to its principal). */
  cpuSoFar: () => number;
  /** The caller's trace context: each host call is a child span of its request. */
  readonly traceContext: Context;
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
  /** The last scheduling pass left an execution waiting for a worker (not for its principal's turn). */
  #needWorker = false;
  readonly #perWorker: number;
  readonly #maxQueued: number;
  readonly #graceMs: number;
  readonly #wasm: QuickJsWasm | undefined;
  readonly #workerUrl: URL | string | undefined;
  readonly #slots: WorkerSlot[] = [];
  readonly #queue: FairQueue<Pending>;
  readonly #queueWaitMs: number;
  readonly #standardLimit: number;
  readonly #priorityWorkers: number;
  readonly #standardNice: number;
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
    this.#queue = new FairQueue({
      maxRunningPerPrincipal: Math.max(1, Math.floor(options.maxRunningPerPrincipal ?? 4)),
      maxQueuedPerPrincipal: Math.max(0, Math.floor(options.maxQueuedPerPrincipal ?? 64)),
    });
    this.#queueWaitMs = Math.max(1, Math.floor(options.maxQueueWaitMs ?? 10_000));
    this.#priorityWorkers = Math.max(1, Math.floor(options.priorityWorkers ?? 1));
    this.#standardLimit = Math.max(1, this.#maxWorkers - this.#priorityWorkers);
    this.#standardNice = Math.max(0, Math.min(19, Math.floor(options.standardNice ?? 10)));
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
    if (this.#queue.size >= this.#maxQueued) {
      return failure(ExecuteErrorCode.Busy, 'Too many Code Mode executions are waiting; try again shortly');
    }
    const principal = request.principal ?? 'default';
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
      stop: new Int32Array(new SharedArrayBuffer(EXEC_SLOTS * 4)),
    };
    return new Promise<ExecuteOutcome>((resolve) => {
      const pending: Pending = {
        execId,
        principal,
        priority: request.priority === true,
        traceContext: captureTraceContext(),
        request,
        limits,
        message,
        deadline,
        resolve,
        calls: new AbortController(),
        slot: undefined,
        settled: false,
        cleanup: () => {},
        started: () => {},
        cpuSoFar: () => Atomics.load(message.stop, EXEC_CPU_MS),
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
      if (!this.#queue.admit(pending)) {
        clearTimeout(wall);
        resolve(
          failure(
            ExecuteErrorCode.Busy,
            `Too many Code Mode executions of this caller are waiting (${this.#queue.queued(principal)}); try again shortly`,
          ),
        );
        return;
      }
      // A bounded wait: a caller whose turn does not come is told so, instead of waiting out its wall clock.
      const waited = setTimeout(() => {
        if (pending.slot === undefined)
          this.#end(
            pending,
            failure(
              ExecuteErrorCode.Busy,
              `Waited ${this.#queueWaitMs} ms for a Code Mode worker (this caller has ${this.#queue.running(principal)} running); try again shortly`,
            ),
          );
      }, this.#queueWaitMs);
      request.signal?.addEventListener('abort', onAbort, { once: true });
      pending.cleanup = () => {
        clearTimeout(wall);
        clearTimeout(waited);
        request.signal?.removeEventListener('abort', onAbort);
      };
      pending.started = () => clearTimeout(waited);
      this.#byId.set(execId, pending);
      void this.#schedule();
    });
  }

  /** A snapshot for health checks and metrics. */
  stats(): { workers: number; running: number; queued: number; workerRestarts: number } {
    const running = this.#slots.reduce((sum, slot) => sum + slot.active.size, 0);
    return {
      workers: this.#slots.length,
      running,
      queued: this.#queue.size,
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
    if (this.#queue.size === 0) {
      this.#setNotify(false);
      return;
    }
    let wasmModule: CompiledModule;
    try {
      wasmModule = await quickJsModule(this.#wasm);
    } catch (thrown) {
      for (const pending of [...this.#byId.values()]) {
        if (pending.slot !== undefined) continue;
        this.#end(
          pending,
          failure(ExecuteErrorCode.SandboxError, `QuickJS failed to load: ${errorMessage(thrown)}`),
        );
      }
      return;
    }
    this.#needWorker = false;
    while (this.#queue.size > 0 && !this.#closed) {
      // The priority lane first; the standard lane only gets workers its limit allows.
      const pending = this.#startable(wasmModule, true) ?? this.#startable(wasmModule, false);
      if (pending === undefined) break;
      const [next, slot] = pending;
      this.#queue.start(next);
      next.started();
      next.slot = slot;
      this.#cancelRetire(slot);
      slot.run({ ...next.message, wallMs: Math.max(0, next.deadline - performance.now()) });
    }
    // Still waiting for a worker to go quiet: keep the workers' `parked` reports on.
    if (!this.#needWorker) this.#setNotify(false);
  }

  /** The lane's next execution and a worker for it, or undefined (nothing queued, or no room). */
  #startable(wasmModule: CompiledModule, priority: boolean): [Pending, WorkerSlot] | undefined {
    const next = this.#queue.peek(priority);
    if (next === undefined) return undefined;
    const slot = this.#pickSlot(wasmModule, priority) ?? this.#waitForQuietWorker(wasmModule, priority);
    if (slot === undefined) {
      this.#needWorker = true;
      return undefined;
    }
    return [next, slot];
  }

  /**
   * Every worker is computing or full: ask the workers to report going quiet, then look once more
   * (a worker that went quiet before it saw the request is found by this second look).
   */
  #waitForQuietWorker(wasmModule: CompiledModule, priority: boolean): WorkerSlot | undefined {
    if (this.#closed) return undefined;
    this.#setNotify(true);
    return this.#pickSlot(wasmModule, priority);
  }

  /** Live workers, of one lane or all. */
  #alive(lane?: WorkerSlot['lane']): number {
    let count = 0;
    for (const slot of this.#slots) if (slot.alive && (lane === undefined || slot.lane === lane)) count += 1;
    return count;
  }

  /** Threads a lane keeps even when idle: `workers` for the standard lane, `priorityWorkers` for priority. */
  #base(lane: WorkerSlot['lane']): number {
    return lane === 'priority' ? this.#priorityWorkers : this.#workers;
  }

  #setNotify(on: boolean): void {
    if (this.#notifying === on) return;
    this.#notifying = on;
    for (const slot of this.#slots) slot.notify(on);
  }

  /**
   * The least-loaded worker of the lane with room that is not computing (a script there would wait
   * for the one computing); else a new thread for the lane: up to its base always, more when its
   * workers with room have all been computing for `overflowAfterMs` (CPU hogs; the priority lane
   * does not wait). The standard lane has at most `maxWorkers − priorityWorkers` threads, all lanes
   * together `maxWorkers`, the priority lane always its reserve. Undefined means wait in the queue.
   */
  #pickSlot(wasmModule: CompiledModule, priority: boolean): WorkerSlot | undefined {
    const lane: WorkerSlot['lane'] = priority ? 'priority' : 'standard';
    let best: WorkerSlot | undefined;
    // How long the most recently busied worker with room has been computing.
    let youngest = Number.POSITIVE_INFINITY;
    // Rotate among equally loaded workers: the one used last is still preparing its next instance.
    const count = this.#slots.length;
    for (let i = 0; i < count; i++) {
      const slot = this.#slots[(this.#rotation + i) % count] as WorkerSlot;
      if (slot.lane !== lane || !slot.accepting || slot.active.size >= this.#perWorker) continue;
      const computingFor = slot.computingFor();
      if (computingFor >= 0) {
        youngest = Math.min(youngest, computingFor);
        continue;
      }
      if (best === undefined || slot.active.size < best.active.size) best = slot;
    }
    if (best !== undefined) this.#rotation = (this.#slots.indexOf(best) + 1) % Math.max(1, count);
    if (best !== undefined && best.active.size === 0) return best;
    const inLane = this.#alive(lane);
    const laneMax = priority ? this.#maxWorkers : this.#standardLimit;
    const canSpawn =
      inLane < laneMax && (this.#alive() < this.#maxWorkers || (priority && inLane < this.#priorityWorkers));
    if (inLane < this.#base(lane) && canSpawn) return this.#spawn(wasmModule, lane);
    if (best !== undefined) return best;
    if (!canSpawn || (youngest === Number.POSITIVE_INFINITY && inLane > 0)) return undefined;
    if (priority || youngest >= this.#afterMs) return this.#spawn(wasmModule, lane);
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

  #spawn(wasmModule: CompiledModule, lane: WorkerSlot['lane']): WorkerSlot {
    const slot = new WorkerSlot({
      wasmModule,
      workerUrl: this.#workerUrl,
      defaultMemoryBytes: this.#limits.memoryBytes,
      lane,
      nice: lane === 'standard' ? this.#standardNice : 0,
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
    if (this.#alive(slot.lane) <= this.#base(slot.lane)) return;
    const timer = setTimeout(() => {
      this.#idleTimers.delete(slot);
      if (slot.active.size > 0 || this.#alive(slot.lane) <= this.#base(slot.lane)) return;
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
      const value = await traceHostCall(pending.traceContext, message.kind, message.id, () =>
        pending.request.call(message.kind, message.id, args, context),
      );
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
    const slot = pending.slot;
    if (slot === undefined) this.#queue.remove(pending);
    else {
      this.#queue.finish(pending);
      // Its principal may have been at its cap, or a worker freed: look at the queue again.
      if (this.#queue.size > 0) queueMicrotask(() => void this.#schedule());
    }
    if (stopFlag !== undefined && slot?.active.has(pending.execId)) {
      Atomics.store(pending.message.stop, 0, stopFlag);
      slot.stop(pending.execId, this.#graceMs);
    }
    pending.resolve(outcome);
  }
}

/**
 * One script execution in a prepared QuickJS instance (sandbox.js): the guest's bridge to the host,
 * its CPU, wall-clock and call limits, and its outcome.
 */
import { EXEC_CPU_MS, ExecuteErrorCode, STOP_ABORTED, STOP_WALL_CLOCK } from './execution-codes.js';
import { GuestReader, limitFailure } from './guest-failure.js';
import { OPERATION_KINDS } from './operation-kinds.js';
import { memoryExhausted, recycleMemory } from './sandbox.js';
import { SCRIPT_FILE, scriptWrappers } from './script-source.js';
import { truncateJson, utf8Length } from './truncate-json.js';

/**
 * @typedef {import('quickjs-emscripten-core').QuickJSContext} QuickJSContext
 * @typedef {import('quickjs-emscripten-core').QuickJSRuntime} QuickJSRuntime
 * @typedef {import('quickjs-emscripten-core').QuickJSHandle} QuickJSHandle
 * @typedef {import('./sandbox.js').Sandbox} Sandbox
 * @typedef {import('./worker-protocol.js').RunMessage} RunMessage
 * @typedef {import('./worker-protocol.js').FromWorker} FromWorker
 * @typedef {import('./worker-protocol.js').WorkerOutcome} WorkerOutcome
 * @typedef {import('./guest-failure.js').Failure} Failure
 */

/** Beyond this a result is not parsed for truncation at all. */
const MAX_TRUNCATABLE_BYTES = 16 * 1024 * 1024;
/** @type {ReadonlySet<string>} */
const KINDS = new Set(OPERATION_KINDS);
/** Longer ids are refused in the worker, before they cost the host anything. */
const MAX_ID_LENGTH = 512;

/** @param {unknown} thrown */
function hostMessage(thrown) {
  return thrown instanceof Error ? thrown.message : String(thrown);
}

export class Execution {
  /**
   * @param {Sandbox} sandbox
   * @param {RunMessage} message
   * @param {(message: FromWorker) => void} post
   * @param {() => void} onEnd
   */
  constructor(sandbox, message, post, onEnd) {
    this.sandbox = sandbox;
    this.message = message;
    this.limits = message.limits;
    this.post = post;
    this.onEnd = onEnd;
    this.wallDeadline = performance.now() + message.wallMs;
    this.cpuUsed = 0;
    this.sliceStart = 0;
    this.inSlice = false;
    /** @type {Failure | undefined} */
    this.stopReason = undefined;
    this.ended = false;
    this.calls = 0;
    this.nextCallId = 1;
    /** @type {Set<number>} calls sent to the host and not yet answered */
    this.pending = new Set();
    /** @type {string[]} */
    this.logs = [];
    this.droppedLogs = 0;
    /** @type {QuickJSRuntime | undefined} */
    this.runtime = undefined;
    /** @type {QuickJSContext | undefined} */
    this.context = undefined;
    /** @type {QuickJSHandle | undefined} */
    this.isOpError = undefined;
    /** @type {QuickJSHandle | undefined} */
    this.deliver = undefined;
    /** @type {QuickJSHandle | undefined} */
    this.promise = undefined;
  }

  /** Builds the guest, compiles the code and runs it until it first waits on the host. */
  start() {
    try {
      const fn = this.setup();
      if (fn === undefined) return;
      this.pump();
    } catch (thrown) {
      this.finish({ ok: false, error: this.hostFailure(thrown), logs: [] });
    }
  }

  /**
   * Resolves one pending host call with its reply envelope and continues the script.
   * @param {number} callId
   * @param {string} envelope
   */
  reply(callId, envelope) {
    if (!this.pending.has(callId) || this.ended) return;
    this.pending.delete(callId);
    try {
      const context = /** @type {QuickJSContext} */ (this.context);
      const deliver = /** @type {QuickJSHandle} */ (this.deliver);
      const result = this.guest(() =>
        context.callFunction(
          deliver,
          context.undefined,
          context.newNumber(callId),
          context.newString(envelope),
        ),
      );
      if (result.error !== undefined) result.error.dispose();
      this.pump();
    } catch (thrown) {
      this.finish({ ok: false, error: this.hostFailure(thrown), logs: [] });
    }
  }

  /** The main thread set the stop flag (abort or wall clock) while the script waits on the host. */
  stop() {
    if (this.ended) return;
    this.shouldInterrupt();
    this.finish({ ok: false, error: this.stopReason ?? this.failure(ExecuteErrorCode.Aborted), logs: [] });
  }

  /** @returns {QuickJSHandle | undefined} the function to run, or undefined when already finished */
  setup() {
    const limits = this.limits;
    const sandbox = this.sandbox;
    sandbox.owner = this;
    const runtime = sandbox.runtime;
    const context = sandbox.context;
    this.runtime = runtime;
    this.context = context;
    const shim = this.guest(() =>
      context.unwrapResult(
        context.callFunction(
          sandbox.prelude,
          context.undefined,
          sandbox.bridge,
          context.newString(this.message.namespace),
          context.newString(JSON.stringify(this.message.methods)),
          // One more than kept, so the worker can tell a cut line and mark it.
          context.newNumber(limits.maxLogLineBytes + 1),
        ),
      ),
    );
    const run = context.getProp(shim, 'run');
    this.isOpError = context.getProp(shim, 'isOpError');
    this.deliver = context.getProp(shim, 'deliver');
    const fn = this.compile(this.message.code);
    if (fn === undefined) return undefined;
    this.promise = this.guest(() => context.unwrapResult(context.callFunction(run, context.undefined, fn)));
    return fn;
  }

  /**
   * Compiles the script into the function to run (nothing of it runs yet).
   * @param {string} code
   * @returns {QuickJSHandle | undefined}
   */
  compile(code) {
    const context = /** @type {QuickJSContext} */ (this.context);
    const wrappers = scriptWrappers(code);
    for (const [index, wrapped] of wrappers.entries()) {
      const result = this.guest(() => context.evalCode(wrapped, SCRIPT_FILE));
      if (result.error === undefined) return result.value;
      if (index < wrappers.length - 1) {
        result.error.dispose();
        continue;
      }
      if (this.stopReason !== undefined) {
        this.finish({ ok: false, error: this.stopReason, logs: [] });
        return undefined;
      }
      this.finish({ ok: false, error: this.reader().compileFailure(result.error), logs: [] });
    }
    return undefined;
  }

  /**
   * Runs a piece of guest work, charging its time to the CPU budget.
   * @template T
   * @param {() => T} work
   * @returns {T}
   */
  guest(work) {
    this.sliceStart = performance.now();
    this.inSlice = true;
    try {
      return work();
    } finally {
      this.inSlice = false;
      this.cpuUsed += performance.now() - this.sliceStart;
      this.reportCpu(this.cpuUsed);
    }
  }

  /**
   * Publishes the CPU used so far to the runner, which charges it to the principal (fair share).
   * @param {number} ms
   */
  reportCpu(ms) {
    Atomics.store(this.message.stop, EXEC_CPU_MS, Math.min(0x7fffffff, Math.floor(ms)));
  }

  /** Polled by QuickJS between bytecodes: the only way to stop a running script. */
  shouldInterrupt() {
    if (this.stopReason !== undefined) return true;
    const flag = Atomics.load(this.message.stop, 0);
    if (flag === STOP_ABORTED) {
      this.stopReason = this.failure(ExecuteErrorCode.Aborted);
      return true;
    }
    const now = performance.now();
    if (flag === STOP_WALL_CLOCK || now > this.wallDeadline) {
      this.stopReason = this.failure(ExecuteErrorCode.WallClock);
      return true;
    }
    // Outside a slice (a stop while waiting on the host) no CPU is being used.
    const used = this.inSlice ? this.cpuUsed + (now - this.sliceStart) : this.cpuUsed;
    if (this.inSlice) this.reportCpu(used);
    if (used > this.limits.cpuMs) {
      this.stopReason = this.failure(ExecuteErrorCode.CpuDeadline);
      return true;
    }
    return false;
  }

  /**
   * @param {string} code
   * @returns {Failure}
   */
  failure(code) {
    return limitFailure(code, this.limits, this.message.wallMs);
  }

  /**
   * The single host function the guest can reach (through the shim only): operation calls and log lines.
   * @param {QuickJSHandle} kindHandle
   * @param {QuickJSHandle} aHandle
   * @param {QuickJSHandle} bHandle
   * @returns {QuickJSHandle | undefined}
   */
  onBridge(kindHandle, aHandle, bHandle) {
    const context = /** @type {QuickJSContext} */ (this.context);
    if (this.ended) return undefined;
    for (const handle of [kindHandle, aHandle, bHandle]) {
      if (context.typeof(handle) !== 'string') return undefined;
    }
    const kind = context.getString(kindHandle);
    const a = context.getString(aHandle);
    const b = context.getString(bHandle);
    if (kind === 'log') {
      this.log(a, b);
      return undefined;
    }
    if (!KINDS.has(kind)) return undefined;
    const callId = this.nextCallId++;
    this.calls += 1;
    if (this.calls > this.limits.maxCalls) {
      // Never answered: the interrupt handler ends the script at its next check.
      this.stopReason = this.failure(ExecuteErrorCode.TooManyCalls);
      return context.newNumber(callId);
    }
    if (a.length > MAX_ID_LENGTH) {
      return context.newString(JSON.stringify({ error: `Unknown operation: ${kind}_${a.slice(0, 64)}…` }));
    }
    const bytes = utf8Length(b);
    if (bytes > this.limits.maxArgBytes) {
      const error = `Arguments for ${kind}_${a} are too large (${bytes} bytes, limit ${this.limits.maxArgBytes})`;
      return context.newString(JSON.stringify({ error }));
    }
    this.pending.add(callId);
    this.post({
      type: 'call',
      execId: this.message.execId,
      callId,
      kind: /** @type {import('./operation.js').OperationKind} */ (kind),
      id: a,
      args: b,
    });
    return context.newNumber(callId);
  }

  /**
   * @param {string} level
   * @param {string} text
   */
  log(level, text) {
    if (this.logs.length >= this.limits.maxLogLines) {
      this.droppedLogs += 1;
      return;
    }
    const prefix = level === 'log' ? '' : `[${level}] `;
    let line = prefix + text;
    if (line.length > this.limits.maxLogLineBytes) line = `${line.slice(0, this.limits.maxLogLineBytes)}…`;
    this.logs.push(line);
  }

  /** Runs queued guest jobs, then decides whether the script is finished. */
  pump() {
    if (this.ended) return;
    const runtime = /** @type {QuickJSRuntime} */ (this.runtime);
    const context = /** @type {QuickJSContext} */ (this.context);
    const jobs = this.guest(() => runtime.executePendingJobs());
    if (this.stopReason !== undefined) {
      this.finish({ ok: false, error: this.stopReason, logs: [] });
      return;
    }
    const state = context.getPromiseState(/** @type {QuickJSHandle} */ (this.promise));
    if (state.type === 'pending') {
      if (jobs.error !== undefined) {
        this.finish({ ok: false, error: this.classify(jobs.error), logs: [] });
        return;
      }
      // No timers exist in the guest: with no host call outstanding nothing can ever settle it.
      if (this.pending.size === 0) {
        this.finish({
          ok: false,
          error: {
            code: ExecuteErrorCode.ScriptError,
            message: 'Script is waiting on a promise that can never settle (there are no timers or events)',
          },
          logs: [],
        });
      }
      return;
    }
    if (state.type === 'fulfilled') {
      this.succeed(state.value);
      return;
    }
    this.finish({ ok: false, error: this.classify(state.error), logs: [] });
  }

  /** @param {QuickJSHandle} handle */
  succeed(handle) {
    const context = /** @type {QuickJSContext} */ (this.context);
    if (context.typeof(handle) !== 'string') {
      this.finish({
        ok: false,
        error: {
          code: ExecuteErrorCode.ScriptError,
          message: 'Script result could not be serialized as JSON',
        },
        logs: [],
      });
      return;
    }
    const text = context.getString(handle);
    const bytes = utf8Length(text);
    if (bytes <= this.limits.maxResultBytes) {
      this.finish({ ok: true, value: text, truncated: false, logs: [] });
      return;
    }
    if (bytes > MAX_TRUNCATABLE_BYTES) {
      this.finish({
        ok: false,
        error: {
          code: ExecuteErrorCode.ResultTooLarge,
          message: `Script result is ${bytes} bytes, too large even to truncate (limit ${MAX_TRUNCATABLE_BYTES}); return less data`,
        },
        logs: [],
      });
      return;
    }
    const truncated = truncateJson(JSON.parse(text), this.limits.maxResultBytes);
    this.finish({ ok: true, value: truncated.text, truncated: true, logs: [] });
  }

  /**
   * @param {QuickJSHandle} error what the script rejected with
   * @returns {Failure}
   */
  classify(error) {
    return this.reader().rejectionFailure(
      error,
      () => this.memoryExhausted(),
      this.failure(ExecuteErrorCode.OutOfMemory),
    );
  }

  /** Reads guest values for error reports, charging getters to the CPU budget. */
  reader() {
    return new GuestReader(
      /** @type {QuickJSContext} */ (this.context),
      (work) => this.guest(work),
      /** @type {QuickJSHandle} */ (this.isOpError),
    );
  }

  memoryExhausted() {
    return memoryExhausted(this.sandbox, this.limits.memoryBytes);
  }

  /**
   * An exception thrown by the engine itself (a native stack overflow, a wasm trap): the instance
   * is discarded either way, so it only needs naming.
   * @param {unknown} thrown
   * @returns {Failure}
   */
  hostFailure(thrown) {
    if (this.stopReason !== undefined) return this.stopReason;
    if (this.memoryExhausted()) return this.failure(ExecuteErrorCode.OutOfMemory);
    if (thrown instanceof RangeError && /call stack/i.test(thrown.message)) {
      return { code: ExecuteErrorCode.ScriptError, message: 'InternalError: stack overflow' };
    }
    return { code: ExecuteErrorCode.SandboxError, message: `The sandbox failed: ${hostMessage(thrown)}` };
  }

  /**
   * Ends the execution once. The whole WebAssembly instance is dropped (not disposed): disposal
   * could assert on objects a killed script left behind; its memory, if it never grew, is wiped
   * and reused for a later instance.
   * @param {WorkerOutcome} outcome
   */
  finish(outcome) {
    if (this.ended) return;
    this.ended = true;
    // A limit that tripped while the error was being read wins over what was read.
    if (!outcome.ok && this.stopReason !== undefined)
      outcome = { ok: false, error: this.stopReason, logs: [] };
    const logs = this.logs;
    if (this.droppedLogs > 0) logs.push(`… ${this.droppedLogs} more log lines dropped`);
    this.pending.clear();
    this.post({ type: 'done', execId: this.message.execId, outcome: { ...outcome, logs } });
    this.runtime = undefined;
    this.context = undefined;
    this.sandbox.owner = undefined;
    recycleMemory(this.sandbox);
    this.onEnd();
  }
}

/** One script execution in its own QuickJS WebAssembly instance, with hard memory and CPU limits. */
import releaseSyncDefault from '@jitl/quickjs-wasmfile-release-sync';
import { newQuickJSWASMModuleFromVariant, newVariant } from 'quickjs-emscripten-core';
import { ExecuteErrorCode, INITIAL_MEMORY_BYTES, STOP_ABORTED, STOP_WALL_CLOCK } from './execution-codes.js';
import { GUEST_PRELUDE } from './guest-prelude.js';
import { truncateJson, utf8Length } from './truncate-json.js';

/**
 * @typedef {import('quickjs-emscripten-core').QuickJSWASMModule} QuickJSWASMModule
 * @typedef {import('quickjs-emscripten-core').QuickJSContext} QuickJSContext
 * @typedef {import('quickjs-emscripten-core').QuickJSRuntime} QuickJSRuntime
 * @typedef {import('quickjs-emscripten-core').QuickJSHandle} QuickJSHandle
 * @typedef {import('./worker-protocol.js').RunMessage} RunMessage
 * @typedef {import('./worker-protocol.js').FromWorker} FromWorker
 * @typedef {import('./worker-protocol.js').WorkerOutcome} WorkerOutcome
 * @typedef {{ code: string, message: string }} Failure
 * @typedef {{
 *   module: QuickJSWASMModule,
 *   memory: WebAssembly.Memory,
 *   memoryBytes: number,
 *   runtime: QuickJSRuntime,
 *   context: QuickJSContext,
 *   bridge: QuickJSHandle,
 *   prelude: QuickJSHandle,
 *   owner: Execution | undefined,
 * }} Sandbox
 */

/** The package's typings describe its CommonJS shape; the ESM default export is the variant itself. */
const releaseSync = /** @type {import('quickjs-emscripten-core').QuickJSSyncVariant} */ (
  /** @type {unknown} */ (releaseSyncDefault)
);
const PAGE = 65536;
/** QuickJS's own stack limit, well inside the worker's native stack so overflow stays a guest error. */
const MAX_STACK_BYTES = 256 * 1024;
/** Beyond this a result is not parsed for truncation at all. */
const MAX_TRUNCATABLE_BYTES = 16 * 1024 * 1024;
/** Slack under the memory cap that still counts as "memory exhausted" for a thrown null. */
const OOM_SLACK_BYTES = 2 * 1024 * 1024;
const KINDS = new Set(['query', 'view', 'report', 'command']);
/** Longer ids are refused in the worker, before they cost the host anything. */
const MAX_ID_LENGTH = 512;
const FUNCTION_FORM = /^\s*(?:async\s+)?(?:function\b|\([^)]*\)\s*=>|[A-Za-z_$][\w$]*\s*=>)/;
const SCRIPT_FILE = 'script.js';

/**
 * A fresh QuickJS instance whose linear memory cannot grow past `memoryBytes` (QuickJS's own limit
 * is not enforced in the WASM build, so the cap lives on the imported WebAssembly.Memory), with its
 * runtime, context, bridge and compiled shim ready. It serves exactly one execution; preparing it
 * ahead keeps instantiation and shim parsing off an execution's critical path.
 * @param {WebAssembly.Module} wasmModule
 * @param {number} memoryBytes
 * @returns {Promise<Sandbox>}
 */
export async function newSandbox(wasmModule, memoryBytes) {
  const memory = takeMemory(Math.max(INITIAL_MEMORY_BYTES / PAGE, Math.floor(memoryBytes / PAGE)));
  const module = await newQuickJSWASMModuleFromVariant(
    newVariant(releaseSync, { wasmModule, wasmMemory: memory }),
  );
  /** @type {Sandbox} */
  const sandbox = /** @type {Sandbox} */ ({ module, memory, memoryBytes, owner: undefined });
  const runtime = module.newRuntime();
  runtime.setMemoryLimit(memoryBytes);
  runtime.setMaxStackSize(MAX_STACK_BYTES);
  runtime.setInterruptHandler(() => sandbox.owner?.shouldInterrupt() ?? false);
  const context = runtime.newContext();
  sandbox.runtime = runtime;
  sandbox.context = context;
  sandbox.bridge = context.newFunction('bridge', (kind, a, b) => sandbox.owner?.onBridge(kind, a, b));
  sandbox.prelude = context.unwrapResult(context.evalCode(GUEST_PRELUDE, 'prelude.js'));
  return sandbox;
}

/**
 * Linear memories of finished executions that never grew, by maximum page count. Allocating a
 * fresh 16 MiB memory (and collecting the dropped ones) costs more than zeroing one.
 * @type {Map<number, WebAssembly.Memory[]>}
 */
const recycledMemories = new Map();
const MAX_RECYCLED_PER_SIZE = 2;

/**
 * A memory for a new instance: a recycled one wiped to zeros (as a fresh one would be), else new.
 * @param {number} maximumPages
 * @returns {WebAssembly.Memory}
 */
function takeMemory(maximumPages) {
  const memory = recycledMemories.get(maximumPages)?.pop();
  if (memory === undefined)
    return new WebAssembly.Memory({ initial: INITIAL_MEMORY_BYTES / PAGE, maximum: maximumPages });
  new Uint8Array(memory.buffer).fill(0);
  return memory;
}

/**
 * Offers a dead instance's memory for reuse. Only called once nothing can enter that instance
 * again (its execution has ended and quickjs-emscripten keeps no finalizers).
 * @param {WebAssembly.Memory} memory
 * @param {number} memoryBytes
 */
function recycleMemory(memory, memoryBytes) {
  if (memory.buffer.byteLength !== INITIAL_MEMORY_BYTES) return;
  const maximumPages = Math.max(INITIAL_MEMORY_BYTES / PAGE, Math.floor(memoryBytes / PAGE));
  const list = recycledMemories.get(maximumPages) ?? [];
  if (list.length >= MAX_RECYCLED_PER_SIZE) return;
  list.push(memory);
  recycledMemories.set(maximumPages, list);
}

/**
 * Strips a surrounding markdown fence while keeping line numbers.
 * @param {string} code
 */
function stripFence(code) {
  const fenced = /^\s*```[\w-]*[ \t]*(\n[\s\S]*?)\n?[ \t]*```\s*$/.exec(code);
  return fenced?.[1] ?? code;
}

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
   * Wraps the code as an async function body (or calls it, when it is itself a function expression).
   * Nothing runs here: evaluating either wrapper only creates a closure.
   * @param {string} code
   * @returns {QuickJSHandle | undefined}
   */
  compile(code) {
    const context = /** @type {QuickJSContext} */ (this.context);
    const source = stripFence(code);
    if (FUNCTION_FORM.test(source)) {
      const wrapped = `(async () => { const __fn = (${source}\n); return typeof __fn === 'function' ? await __fn() : __fn; })`;
      const result = this.guest(() => context.evalCode(wrapped, SCRIPT_FILE));
      if (result.error === undefined) return result.value;
      result.error.dispose();
    }
    const result = this.guest(() => context.evalCode(`(async () => {${source}\n})`, SCRIPT_FILE));
    if (result.error === undefined) return result.value;
    const error = result.error;
    if (this.stopReason !== undefined) {
      this.finish({ ok: false, error: this.stopReason, logs: [] });
      return undefined;
    }
    const message = this.readString(error, 'message') ?? 'invalid script';
    const line = this.readNumber(error, 'lineNumber');
    const name = this.readString(error, 'name') ?? 'SyntaxError';
    const code_ = name === 'SyntaxError' ? ExecuteErrorCode.SyntaxError : ExecuteErrorCode.ScriptError;
    const where = line === undefined ? '' : ` (line ${line})`;
    this.finish({ ok: false, error: { code: code_, message: `${name}: ${message}${where}` }, logs: [] });
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
    try {
      return work();
    } finally {
      this.cpuUsed += performance.now() - this.sliceStart;
    }
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
    if (this.cpuUsed + (now - this.sliceStart) > this.limits.cpuMs) {
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
    switch (code) {
      case ExecuteErrorCode.Aborted:
        return { code, message: 'Execution aborted' };
      case ExecuteErrorCode.WallClock:
        return { code, message: `Script exceeded its wall-clock limit of ${this.message.wallMs} ms` };
      case ExecuteErrorCode.CpuDeadline:
        return { code, message: `Script exceeded its CPU deadline of ${this.limits.cpuMs} ms` };
      case ExecuteErrorCode.OutOfMemory:
        return { code, message: `Script ran out of memory (limit ${this.limits.memoryBytes} bytes)` };
      case ExecuteErrorCode.TooManyCalls:
        return { code, message: `Script made more than ${this.limits.maxCalls} operation calls` };
      default:
        return { code, message: code };
    }
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
   * Maps what the script rejected with onto an error code and a message a model can act on.
   * @param {QuickJSHandle} error
   * @returns {Failure}
   */
  classify(error) {
    const context = /** @type {QuickJSContext} */ (this.context);
    const type = context.typeof(error);
    if (type === 'object' && !this.isNull(error)) {
      if (this.isOperationError(error)) {
        return {
          code: ExecuteErrorCode.OperationError,
          message: this.readString(error, 'message') ?? 'Operation failed',
        };
      }
      const name = this.readString(error, 'name') ?? 'Error';
      const message = this.readString(error, 'message') ?? '';
      if (name === 'InternalError' && message === 'out of memory')
        return this.failure(ExecuteErrorCode.OutOfMemory);
      const stack = this.readString(error, 'stack') ?? '';
      const line = new RegExp(`${SCRIPT_FILE.replace('.', '\\.')}:(\\d+)`).exec(stack)?.[1];
      const where = line === undefined ? '' : ` (line ${line})`;
      return { code: ExecuteErrorCode.ScriptError, message: `${name}: ${message}${where}` };
    }
    if ((type === 'object' || type === 'undefined') && this.memoryExhausted()) {
      return this.failure(ExecuteErrorCode.OutOfMemory);
    }
    const text = type === 'string' ? context.getString(error) : this.safeDump(error);
    return { code: ExecuteErrorCode.ScriptError, message: `Uncaught ${text}` };
  }

  /** @param {QuickJSHandle} handle */
  isNull(handle) {
    const context = /** @type {QuickJSContext} */ (this.context);
    return context.sameValue(handle, context.null);
  }

  /** @param {QuickJSHandle} error */
  isOperationError(error) {
    const context = /** @type {QuickJSContext} */ (this.context);
    const result = context.callFunction(
      /** @type {QuickJSHandle} */ (this.isOpError),
      context.undefined,
      error,
    );
    if (result.error !== undefined) {
      result.error.dispose();
      return false;
    }
    return context.typeof(result.value) === 'boolean' && context.dump(result.value) === true;
  }

  /**
   * Reads a string property without trusting the object (getters run under the CPU budget).
   * @param {QuickJSHandle} handle
   * @param {string} key
   * @returns {string | undefined}
   */
  readString(handle, key) {
    const context = /** @type {QuickJSContext} */ (this.context);
    try {
      const value = this.guest(() => context.getProp(handle, key));
      if (context.typeof(value) !== 'string') return undefined;
      return context.getString(value).slice(0, 4000);
    } catch {
      return undefined;
    }
  }

  /**
   * @param {QuickJSHandle} handle
   * @param {string} key
   * @returns {number | undefined}
   */
  readNumber(handle, key) {
    const context = /** @type {QuickJSContext} */ (this.context);
    try {
      const value = context.getProp(handle, key);
      return context.typeof(value) === 'number' ? context.getNumber(value) : undefined;
    } catch {
      return undefined;
    }
  }

  /** @param {QuickJSHandle} handle */
  safeDump(handle) {
    const context = /** @type {QuickJSContext} */ (this.context);
    try {
      const type = context.typeof(handle);
      if (type === 'number' || type === 'boolean' || type === 'undefined' || type === 'bigint') {
        return String(context.dump(handle));
      }
      return type;
    } catch {
      return 'value';
    }
  }

  memoryExhausted() {
    const cap = Math.max(INITIAL_MEMORY_BYTES, Math.floor(this.limits.memoryBytes / PAGE) * PAGE);
    return this.sandbox.memory.buffer.byteLength >= cap - OOM_SLACK_BYTES;
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
    recycleMemory(this.sandbox.memory, this.sandbox.memoryBytes);
    this.onEnd();
  }
}

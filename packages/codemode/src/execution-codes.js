/** Codes shared by the runner and its workers: stop-flag values, control slots, execution error codes, sizes. */

/** The QuickJS release wasm declares 256 pages (16 MiB) as its minimum linear memory. */
export const INITIAL_MEMORY_BYTES = 256 * 65536;

/** Values of an execution's shared stop flag (slot 0 of its Int32Array), written by the main thread; 0 runs on. */
export const STOP_ABORTED = 1;
export const STOP_WALL_CLOCK = 2;
/** Slot 1 of the same array: guest CPU ms the execution has used so far, kept current by its worker. */
export const EXEC_CPU_MS = 1;
/** Int32 slots of an execution's shared array. */
export const EXEC_SLOTS = 2;

/**
 * Int32 slots of a worker's shared control array. The runner counts the wakes (run, reply) it
 * posts, the worker the wakes it has handled; fewer handled than posted means it is computing.
 */
export const CONTROL_POSTED = 0;
export const CONTROL_HANDLED = 1;
/** Non-zero while executions wait for a worker: the worker then posts `parked` once it is quiet. */
export const CONTROL_NOTIFY = 2;
/** Wakes the worker has started, and when it started the last one (ms since the runner's epoch). */
export const CONTROL_RECEIVED = 3;
export const CONTROL_SINCE = 4;
export const CONTROL_SLOTS = 5;

/** Every `error.code` an execution can end with. */
export const ExecuteErrorCode = /** @type {const} */ ({
  /** The code does not parse; the message names the line. */
  SyntaxError: 'syntax_error',
  /** The script threw (or rejected with) something that is not an operation error. */
  ScriptError: 'script_error',
  /** An operation call failed and the script did not catch it; the message is the operation's. */
  OperationError: 'operation_error',
  /** The script computed longer than its CPU budget (time spent running guest code). */
  CpuDeadline: 'cpu_deadline',
  /** The sandbox's linear memory reached its cap. */
  OutOfMemory: 'out_of_memory',
  /** The execution ran longer than its wall-clock limit, host calls included. */
  WallClock: 'wall_clock',
  /** The script made more host calls than allowed. */
  TooManyCalls: 'too_many_calls',
  /** The execution's AbortSignal fired. */
  Aborted: 'aborted',
  /** The script's result is too large even to truncate. */
  ResultTooLarge: 'result_too_large',
  /** The code is longer than allowed. */
  CodeTooLarge: 'code_too_large',
  /** Too many executions are queued. */
  Busy: 'busy',
  /** The runner was closed before the execution finished. */
  Closed: 'closed',
  /** The engine or its worker failed unexpectedly; the execution's outcome is unknown. */
  SandboxError: 'sandbox_error',
});

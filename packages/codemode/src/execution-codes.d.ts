/** Types of execution-codes.js for TypeScript importers (including packages that read these sources). */
// `@public` on each: knip resolves `./*.js` imports to the .js file, so it sees no importer of these declarations.
/** @public */
export declare const INITIAL_MEMORY_BYTES: number;
/** @public */
export declare const STOP_ABORTED: 1;
/** @public */
export declare const STOP_WALL_CLOCK: 2;
/** @public */
export declare const EXEC_CPU_MS: 1;
/** @public */
export declare const EXEC_SLOTS: 2;
/** @public */
export declare const CONTROL_POSTED: 0;
/** @public */
export declare const CONTROL_HANDLED: 1;
/** @public */
export declare const CONTROL_NOTIFY: 2;
/** @public */
export declare const CONTROL_RECEIVED: 3;
/** @public */
export declare const CONTROL_SINCE: 4;
/** @public */
export declare const CONTROL_SLOTS: 5;
/** @public */
export declare const ExecuteErrorCode: {
  readonly SyntaxError: 'syntax_error';
  readonly ScriptError: 'script_error';
  readonly OperationError: 'operation_error';
  readonly CpuDeadline: 'cpu_deadline';
  readonly OutOfMemory: 'out_of_memory';
  readonly WallClock: 'wall_clock';
  readonly TooManyCalls: 'too_many_calls';
  readonly Aborted: 'aborted';
  readonly ResultTooLarge: 'result_too_large';
  readonly CodeTooLarge: 'code_too_large';
  readonly Busy: 'busy';
  readonly Closed: 'closed';
  readonly SandboxError: 'sandbox_error';
};

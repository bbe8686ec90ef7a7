/**
 * What went wrong in a script, in words a model can act on: limit failures, and errors read from
 * the guest without trusting it (a getter on a thrown object runs under the CPU budget).
 */
import { ExecuteErrorCode } from './execution-codes.js';
import { scriptLine } from './script-source.js';

/**
 * @typedef {import('quickjs-emscripten-core').QuickJSContext} QuickJSContext
 * @typedef {import('quickjs-emscripten-core').QuickJSHandle} QuickJSHandle
 * @typedef {import('./worker-protocol.js').WorkerLimits} WorkerLimits
 * @typedef {{ code: string, message: string }} Failure
 */

/** Characters kept of a string read from the guest. */
const MAX_READ_CHARS = 4000;

/**
 * The failure a tripped limit (or an abort) ends an execution with.
 * @param {string} code
 * @param {WorkerLimits} limits
 * @param {number} wallMs
 * @returns {Failure}
 */
export function limitFailure(code, limits, wallMs) {
  switch (code) {
    case ExecuteErrorCode.Aborted:
      return { code, message: 'Execution aborted' };
    case ExecuteErrorCode.WallClock:
      return { code, message: `Script exceeded its wall-clock limit of ${wallMs} ms` };
    case ExecuteErrorCode.CpuDeadline:
      return { code, message: `Script exceeded its CPU deadline of ${limits.cpuMs} ms` };
    case ExecuteErrorCode.OutOfMemory:
      return { code, message: `Script ran out of memory (limit ${limits.memoryBytes} bytes)` };
    case ExecuteErrorCode.TooManyCalls:
      return { code, message: `Script made more than ${limits.maxCalls} operation calls` };
    default:
      return { code, message: code };
  }
}

/** Reads the properties of guest values that may be hostile. */
export class GuestReader {
  /**
   * @param {QuickJSContext} context
   * @param {<T>(work: () => T) => T} charge runs guest work under the CPU budget
   * @param {QuickJSHandle} isOpError the shim's operation-error test
   */
  constructor(context, charge, isOpError) {
    this.context = context;
    this.charge = charge;
    this.isOpError = isOpError;
  }

  /**
   * The error a script that does not compile ends with.
   * @param {QuickJSHandle} error
   * @returns {Failure}
   */
  compileFailure(error) {
    const message = this.readString(error, 'message') ?? 'invalid script';
    const line = this.readNumber(error, 'lineNumber');
    const name = this.readString(error, 'name') ?? 'SyntaxError';
    const code = name === 'SyntaxError' ? ExecuteErrorCode.SyntaxError : ExecuteErrorCode.ScriptError;
    const where = line === undefined ? '' : ` (line ${line})`;
    return { code, message: `${name}: ${message}${where}` };
  }

  /**
   * Maps what the script rejected with onto an error code and a message.
   * @param {QuickJSHandle} error
   * @param {() => boolean} memoryExhausted
   * @param {Failure} outOfMemory
   * @returns {Failure}
   */
  rejectionFailure(error, memoryExhausted, outOfMemory) {
    const context = this.context;
    const type = context.typeof(error);
    if (type === 'object' && !context.sameValue(error, context.null)) {
      if (this.isOperationError(error)) {
        return {
          code: ExecuteErrorCode.OperationError,
          message: this.readString(error, 'message') ?? 'Operation failed',
        };
      }
      const name = this.readString(error, 'name') ?? 'Error';
      const message = this.readString(error, 'message') ?? '';
      if (name === 'InternalError' && message === 'out of memory') return outOfMemory;
      const line = scriptLine(this.readString(error, 'stack') ?? '');
      const where = line === undefined ? '' : ` (line ${line})`;
      return { code: ExecuteErrorCode.ScriptError, message: `${name}: ${message}${where}` };
    }
    if ((type === 'object' || type === 'undefined') && memoryExhausted()) return outOfMemory;
    const text = type === 'string' ? context.getString(error) : this.safeDump(error);
    return { code: ExecuteErrorCode.ScriptError, message: `Uncaught ${text}` };
  }

  /** @param {QuickJSHandle} error */
  isOperationError(error) {
    const context = this.context;
    const result = context.callFunction(this.isOpError, context.undefined, error);
    if (result.error !== undefined) {
      result.error.dispose();
      return false;
    }
    return context.typeof(result.value) === 'boolean' && context.dump(result.value) === true;
  }

  /**
   * @param {QuickJSHandle} handle
   * @param {string} key
   * @returns {string | undefined}
   */
  readString(handle, key) {
    const context = this.context;
    try {
      const value = this.charge(() => context.getProp(handle, key));
      if (context.typeof(value) !== 'string') return undefined;
      return context.getString(value).slice(0, MAX_READ_CHARS);
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
    const context = this.context;
    try {
      const value = context.getProp(handle, key);
      return context.typeof(value) === 'number' ? context.getNumber(value) : undefined;
    } catch {
      return undefined;
    }
  }

  /** @param {QuickJSHandle} handle */
  safeDump(handle) {
    const context = this.context;
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
}

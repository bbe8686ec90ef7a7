/** The two error families: WireError crosses the wire, LocalError never does. */
import { ErrorCode } from './error-codes.js';
import type { JsonRpcErrorObject } from './messages.js';

/** An error meant for the peer: numeric JSON-RPC code, message, optional data. */
export class WireError extends Error {
  override name = 'WireError';
  readonly code: number;
  readonly data: unknown;

  constructor(code: number, message: string, data?: unknown, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.data = data;
  }

  toJSON(): JsonRpcErrorObject {
    return this.data === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, data: this.data };
  }
}

/** An error that stays in this process: a string code for programs, a message for people. */
export class LocalError extends Error {
  override name = 'LocalError';
  readonly code: string;

  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}

export const INTERNAL_ERROR_MESSAGE = 'Internal error';

/**
 * Normalises anything thrown into a WireError. Only WireErrors keep their text; everything else
 * becomes -32603 with a generic message, so internals never reach the peer. `onInternal` sees
 * the original (log it there).
 */
export function toWireError(thrown: unknown, onInternal?: (thrown: unknown) => void): WireError {
  if (thrown instanceof WireError) return thrown;
  onInternal?.(thrown);
  return new WireError(ErrorCode.InternalError, INTERNAL_ERROR_MESSAGE, undefined, { cause: thrown });
}

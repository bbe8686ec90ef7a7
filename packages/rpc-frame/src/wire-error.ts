/** The two error families: WireError crosses the wire, LocalError never does. */
import { brandErrorClass, hasErrorBrand } from './error-brand.js';
import { JsonRpcErrorCode } from './error-codes.js';
import type { RpcFrameErrorCode } from './local-errors.js';
import type { JsonRpcErrorObject } from './messages.js';

/** Marks WireErrors across copies of this package (two installed versions must still agree). */
const WIRE_ERROR_BRAND = '@agentd/rpc-frame/WireError';

/** An error meant for the peer: numeric JSON-RPC code, message, optional data. */
export class WireError extends Error {
  override name = 'WireError';
  readonly code: number;
  readonly data: unknown;

  constructor(code: number, message: string, data?: unknown, options?: { cause?: unknown }) {
    super(message, options);
    if (!Number.isSafeInteger(code))
      throw new LocalError<RpcFrameErrorCode>(
        'invalid_argument',
        `a wire error code must be an integer, got ${code}`,
      );
    this.code = code;
    this.data = data;
  }

  /**
   * The error a peer answered with, as a WireError again (a client rethrowing a JSON-RPC error
   * response, a stored task failure): its code, text and data are the peer's, not built here.
   */
  static from(error: JsonRpcErrorObject): WireError {
    return new WireError(error.code, error.message, error.data);
  }

  /** The same test as `instanceof WireError`, as a type guard usable in expressions. */
  static is(value: unknown): value is WireError {
    return isBrandedWireError(value);
  }

  /** The JSON-RPC error object; the cause and stack never cross the wire. */
  toJSON(): JsonRpcErrorObject {
    return this.data === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, data: this.data };
  }
}

// `instanceof WireError` is brand-aware: it is also true for WireErrors made by another installed
// copy of this package. Subclasses keep the ordinary prototype check unless they are branded too.
brandErrorClass(WireError, WIRE_ERROR_BRAND);

function isBrandedWireError(value: unknown): boolean {
  return hasErrorBrand(value, WIRE_ERROR_BRAND) && Number.isSafeInteger((value as { code?: unknown }).code);
}

/**
 * An error that stays in this process: a string code for programs, a message for people. Each
 * package narrows `Code` to its own union of codes (its error catalogue).
 */
export class LocalError<Code extends string = string> extends Error {
  override name = 'LocalError';
  readonly code: Code;

  constructor(code: Code, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}

// Recognised across installed copies of this package, as WireError is.
brandErrorClass(LocalError, '@agentd/rpc-frame/LocalError');

export const INTERNAL_ERROR_MESSAGE = 'Internal error';

/**
 * Normalises anything thrown into a WireError. Only WireErrors keep their text; everything else
 * (LocalErrors included) becomes -32603 with a generic message, so internals never reach the
 * peer. `onInternal` sees the original (log it there); if it throws, that is swallowed.
 */
export function toWireError(thrown: unknown, onInternal?: (thrown: unknown) => void): WireError {
  if (WireError.is(thrown)) return thrown;
  try {
    onInternal?.(thrown);
  } catch {
    // A failing logger must not turn an error answer into a crash.
  }
  return new WireError(JsonRpcErrorCode.InternalError, INTERNAL_ERROR_MESSAGE, undefined, { cause: thrown });
}

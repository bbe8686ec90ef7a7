/** Tests for the error families and toWireError. */
import { describe, expect, it } from 'vitest';
import { ErrorCode, JsonRpcErrorCode } from './error-codes.js';
import { INTERNAL_ERROR_MESSAGE, LocalError, toWireError, WireError } from './wire-error.js';

describe('WireError', () => {
  it('carries a numeric code, a message and optional data, and serialises to a JSON-RPC error', () => {
    const error = new WireError(ErrorCode.InvalidParams, 'Invalid params', { field: 'uri' });
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('WireError');
    expect(JSON.parse(JSON.stringify(error))).toEqual({
      code: -32602,
      message: 'Invalid params',
      data: { field: 'uri' },
    });
    expect(new WireError(-32601, 'Method not found').toJSON()).toEqual({
      code: -32601,
      message: 'Method not found',
    });
  });

  it('keeps the cause local: it is not serialised', () => {
    const error = new WireError(-32603, 'x', undefined, { cause: new Error('secret path /etc/x') });
    expect(error.cause).toBeInstanceOf(Error);
    expect(JSON.stringify(error)).not.toContain('secret');
  });

  it('refuses a non-integer code', () => {
    expect(() => new WireError(1.5, 'x')).toThrow(expect.objectContaining({ code: 'invalid_argument' }));
  });

  it('recognises WireErrors from another copy of the package by their brand', () => {
    const foreign = Object.assign(new Error('from a second copy'), { code: -32602 });
    Object.defineProperty(foreign, Symbol.for('@agentd/rpc-frame/WireError'), { value: true });
    expect(WireError.is(foreign)).toBe(true);
    expect(WireError.is(Object.assign(new Error('x'), { code: -32602 }))).toBe(false);
    expect(WireError.is({ code: -32602, message: 'plain object' })).toBe(false);
  });

  it('makes instanceof brand-aware, and keeps subclasses on the prototype check', () => {
    const foreign = Object.assign(new Error('from a second copy'), { code: -32602 });
    Object.defineProperty(foreign, Symbol.for('@agentd/rpc-frame/WireError'), { value: true });
    expect(foreign instanceof WireError).toBe(true);
    expect(new Error('plain') instanceof WireError).toBe(false);
    class Refusal extends WireError {}
    expect(new Refusal(-32600, 'x') instanceof Refusal).toBe(true);
    expect(new WireError(-32600, 'x') instanceof Refusal).toBe(false);
    expect(foreign instanceof Refusal).toBe(false);
  });
});

describe('WireError.from', () => {
  it("rebuilds a peer's JSON-RPC error object, data included", () => {
    const error = WireError.from({ code: -32002, message: 'Resource not found', data: { uri: 'x://y' } });
    expect(error).toBeInstanceOf(WireError);
    expect(error.toJSON()).toEqual({ code: -32002, message: 'Resource not found', data: { uri: 'x://y' } });
    expect(WireError.from({ code: -32601, message: 'Method not found' }).toJSON()).toEqual({
      code: -32601,
      message: 'Method not found',
    });
  });
});

describe('LocalError', () => {
  it('recognises LocalErrors from another copy of the package by their brand', () => {
    const foreign = Object.assign(new Error('from a second copy'), { code: 'busy' });
    expect(foreign instanceof LocalError).toBe(false);
    Object.defineProperty(foreign, Symbol.for('@agentd/rpc-frame/LocalError'), { value: true });
    expect(foreign instanceof LocalError).toBe(true);
    expect(new WireError(-32600, 'x') instanceof LocalError).toBe(false);
    class BusyError extends LocalError<'busy'> {}
    expect(new BusyError('busy', 'x') instanceof LocalError).toBe(true);
    expect(foreign instanceof BusyError).toBe(false);
  });

  it('carries a string code and a cause', () => {
    const cause = new Error('low level');
    const error = new LocalError('limit_reached', 'too many runs', { cause });
    expect(error).toMatchObject({
      name: 'LocalError',
      code: 'limit_reached',
      message: 'too many runs',
      cause,
    });
  });
});

describe('toWireError', () => {
  it('passes WireErrors through unchanged', () => {
    const error = new WireError(-32022, 'Unsupported protocol version', { supported: ['x'], requested: 'y' });
    expect(toWireError(error)).toBe(error);
  });

  it.each([
    ['an Error', new Error('ENOENT: /home/secret')],
    ['a LocalError', new LocalError('busy', 'internal detail')],
    ['a string', 'db password wrong'],
    ['undefined', undefined],
    ['an object with a code', { code: -32602, message: 'looks like a wire error' }],
  ])('turns %s into a generic -32603 without leaking its text', (_name, thrown) => {
    const seen: unknown[] = [];
    const wire = toWireError(thrown, (t) => seen.push(t));
    expect(wire.toJSON()).toEqual({ code: -32603, message: INTERNAL_ERROR_MESSAGE });
    expect(wire.cause).toBe(thrown);
    expect(seen).toEqual([thrown]);
  });

  it('does not throw when the logging callback throws', () => {
    const wire = toWireError(new Error('x'), () => {
      throw new Error('logger down');
    });
    expect(wire.code).toBe(-32603);
  });
});

describe('JsonRpcErrorCode', () => {
  it("has JSON-RPC 2.0's own codes (MCP's are in @agentd/lifecycle's catalogue)", () => {
    expect(ErrorCode).toBe(JsonRpcErrorCode);
    expect(JsonRpcErrorCode).toEqual({
      ParseError: -32700,
      InvalidRequest: -32600,
      MethodNotFound: -32601,
      InvalidParams: -32602,
      InternalError: -32603,
    });
  });
});

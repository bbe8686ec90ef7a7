import { WireError } from '@agentd/rpc-frame';
import { describe, expect, it } from 'vitest';
import { ErrorCode } from './error-codes.js';
import { Refusal, refuse } from './refusals.js';

describe('the refusal catalogue', () => {
  it('spells method-not-found once, with an optional reason, and clips a long method name', () => {
    expect(refuse.methodNotFound('tools/nope').toJSON()).toEqual({
      code: ErrorCode.MethodNotFound,
      message: 'Method not found: tools/nope',
    });
    expect(refuse.methodNotFound('logging/setLevel', 'this server does not log to clients').message).toBe(
      'Method not found: logging/setLevel (this server does not log to clients)',
    );
    const long = refuse.methodNotFound('x'.repeat(1000)).message;
    expect(long.length).toBeLessThan(160);
  });

  it('answers a missing resource by era: -32002 legacy, -32602 modern, both with data.uri', () => {
    expect(refuse.resourceNotFound('file:///a', 'legacy').toJSON()).toEqual({
      code: -32002,
      message: 'Resource not found',
      data: { uri: 'file:///a' },
    });
    expect(refuse.resourceNotFound('file:///a', 'modern').toJSON().code).toBe(-32602);
  });

  it('gives shutdown and a closing connection the same implementation-defined code', () => {
    expect(refuse.shuttingDown().code).toBe(ErrorCode.ConnectionClosed);
    expect(refuse.connectionClosing().code).toBe(ErrorCode.ConnectionClosed);
    expect(ErrorCode.ConnectionClosed).toBe(-32000);
  });

  it('builds Refusals that are WireErrors naming their rule, and never share a stack', () => {
    const a = refuse.internalError();
    const b = refuse.internalError();
    expect(a).toBeInstanceOf(Refusal);
    expect(WireError.is(a)).toBe(true);
    expect(a.reason).toBe('internal-error');
    expect(a).not.toBe(b);
    expect(refuse.missingClientCapability({ sampling: {} }).toJSON()).toEqual({
      code: -32021,
      message: 'Missing required client capability',
      data: { requiredCapabilities: { sampling: {} } },
    });
  });
});

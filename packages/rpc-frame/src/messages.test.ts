/** Tests for the message constructors. */
import { describe, expect, it } from 'vitest';
import { classify } from './classify.js';
import { errorResponse, notification, successResponse } from './messages.js';

describe('message constructors', () => {
  it('build messages that classify as what they are', () => {
    expect(classify(successResponse(1, {}))).toMatchObject({ kind: 'response' });
    expect(classify(errorResponse(null, { code: -32700, message: 'Parse error' }))).toMatchObject({
      kind: 'response',
    });
    expect(classify(notification('notifications/initialized'))).toMatchObject({ kind: 'notification' });
  });

  it('leave params out when there are none', () => {
    expect(notification('n')).toEqual({ jsonrpc: '2.0', method: 'n' });
    expect('params' in notification('n')).toBe(false);
    expect(notification('n', { a: 1 })).toEqual({ jsonrpc: '2.0', method: 'n', params: { a: 1 } });
  });
});

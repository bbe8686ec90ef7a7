import { describe, expect, it } from 'vitest';
import { classify } from './classify.js';

describe('classify', () => {
  it('recognises a request', () => {
    expect(classify({ jsonrpc: '2.0', id: 1, method: 'ping' }).kind).toBe('request');
  });
  it('rejects a float id', () => {
    expect(classify({ jsonrpc: '2.0', id: 1.5, method: 'ping' })).toMatchObject({
      kind: 'invalid',
      id: null,
    });
  });
});

/** Tests for classify: every JSON-RPC 2.0 rule MCP relies on. */
import { describe, expect, it } from 'vitest';
import { classify, isJsonObject, isRequestId } from './classify.js';

const base = { jsonrpc: '2.0' } as const;

describe('classify', () => {
  it('recognises a request, with and without params', () => {
    expect(classify({ ...base, id: 1, method: 'ping' })).toEqual({
      kind: 'request',
      message: { ...base, id: 1, method: 'ping' },
    });
    expect(classify({ ...base, id: 'a', method: 'tools/call', params: { name: 'x' } }).kind).toBe('request');
  });

  it('recognises a notification (no id member)', () => {
    expect(classify({ ...base, method: 'notifications/initialized' }).kind).toBe('notification');
  });

  it('recognises success and error responses', () => {
    expect(classify({ ...base, id: 7, result: {} }).kind).toBe('response');
    expect(classify({ ...base, id: 7, error: { code: -32601, message: 'nope' } }).kind).toBe('response');
    expect(classify({ ...base, id: null, error: { code: -32700, message: 'Parse error' } }).kind).toBe(
      'response',
    );
    expect(classify({ ...base, error: { code: -32700, message: 'Parse error', data: [1] } }).kind).toBe(
      'response',
    );
  });

  it('accepts string, zero, negative and large safe integer ids', () => {
    for (const id of ['', 'x', 0, -1, Number.MAX_SAFE_INTEGER]) {
      expect(classify({ ...base, id, method: 'ping' }).kind).toBe('request');
    }
  });

  it.each([
    ['a float', 1.5],
    ['null', null],
    ['an object', { n: 1 }],
    ['an array', [1]],
    ['a boolean', true],
    ['an unsafe integer', 2 ** 60],
  ])('rejects %s as a request id, answering id null', (_name, id) => {
    const value = { ...base, id, method: 'ping' };
    expect(classify(value)).toEqual({
      kind: 'invalid',
      code: -32600,
      reason: expect.stringContaining('id must be'),
      id: null,
      value,
    });
  });

  it('keeps the refused value, for a wire profile that reads it its own way', () => {
    const value = { jsonrpc: '2.0', id: 7 };
    expect((classify(value) as { value?: unknown }).value).toBe(value);
    expect(classify(42)).toMatchObject({ kind: 'invalid', value: 42 });
  });

  it('rejects batches', () => {
    expect(classify([{ ...base, id: 1, method: 'ping' }])).toMatchObject({
      kind: 'invalid',
      code: -32600,
      reason: expect.stringContaining('batch'),
      id: null,
    });
  });

  it.each([null, 1, 'x', true])('rejects a non-object %s', (value) => {
    expect(classify(value)).toMatchObject({ kind: 'invalid', code: -32600, id: null });
  });

  it('rejects a missing or wrong jsonrpc version', () => {
    expect(classify({ id: 1, method: 'ping' })).toMatchObject({ kind: 'invalid', reason: /jsonrpc/ });
    expect(classify({ jsonrpc: '1.0', id: 1, method: 'ping' })).toMatchObject({ kind: 'invalid' });
    expect(classify({ jsonrpc: 2, id: 1, result: {} })).toMatchObject({ kind: 'invalid', id: null });
  });

  it('echoes the id of a request-shaped message with a readable id', () => {
    expect(classify({ id: 4, method: 'ping' })).toMatchObject({ kind: 'invalid', id: 4 });
    expect(classify({ ...base, id: 'q', method: 'x', params: [1, 2] })).toMatchObject({
      kind: 'invalid',
      reason: 'params must be an object',
      id: 'q',
    });
    expect(classify({ ...base, id: 5, method: '' })).toMatchObject({ kind: 'invalid', id: 5 });
    expect(classify({ ...base, id: 5, method: 3 })).toMatchObject({ kind: 'invalid', id: 5 });
  });

  it('rejects params that are not an object', () => {
    for (const params of [null, [1], 'x', 3]) {
      expect(classify({ ...base, method: 'n', params })).toMatchObject({ kind: 'invalid', code: -32600 });
    }
  });

  it('rejects a message with neither method nor result nor error', () => {
    expect(classify({ ...base, id: 1 })).toMatchObject({ kind: 'invalid', id: null });
    expect(classify({})).toMatchObject({ kind: 'invalid' });
  });

  it('rejects a message with both a method and a result', () => {
    expect(classify({ ...base, id: 1, method: 'x', result: {} })).toMatchObject({ kind: 'invalid', id: 1 });
  });

  it('never answers a bad response with its id (that id is in the other side of the id space)', () => {
    const bad = [
      { ...base, id: 1, result: {}, error: { code: 1, message: 'x' } },
      { ...base, id: 1, result: 'text' },
      { ...base, id: 1, result: null },
      { ...base, id: 1, error: { code: 1.5, message: 'x' } },
      { ...base, id: 1, error: { code: 1 } },
      { ...base, id: 1, error: 'boom' },
      { ...base, id: 1.5, result: {} },
      { ...base, result: {} },
      { ...base, id: null, result: {} },
      { ...base, id: {}, error: { code: 1, message: 'x' } },
    ];
    for (const value of bad)
      expect(classify(value)).toMatchObject({ kind: 'invalid', code: -32600, id: null });
  });

  it('treats members set to undefined as absent (as JSON.stringify does)', () => {
    expect(classify({ ...base, id: undefined, method: 'n' }).kind).toBe('notification');
    expect(classify({ ...base, id: 1, method: 'n', params: undefined }).kind).toBe('request');
  });
});

describe('guards', () => {
  it('isRequestId', () => {
    expect([1, 'a', -3, 0].every(isRequestId)).toBe(true);
    expect([1.1, null, undefined, {}, Number.NaN, 2 ** 53].some(isRequestId)).toBe(false);
  });
  it('isJsonObject', () => {
    expect(isJsonObject({})).toBe(true);
    expect([null, [], 'x', 1].some(isJsonObject)).toBe(false);
  });
});

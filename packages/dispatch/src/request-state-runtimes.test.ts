/**
 * Request-state tokens and argument digests are the same bytes on every runtime: the pure path
 * (no `process.getBuiltinModule`, as on a runtime without Node built-ins) and the native one both
 * reproduce what the node:crypto + Buffer codec minted before, so tokens already issued stay valid.
 */
import { createHash, createHmac } from 'node:crypto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { StateBinding } from './request-state.js';

type RequestStateModule = typeof import('./request-state.js');

const KEY = 'k'.repeat(32);
const NOW = 1_790_000_000_000;
const binding: StateBinding = {
  method: 'tools/call',
  name: 'deploy',
  argumentsDigest: '',
  principal: 'bearer:ünïcödé',
};
const state = {
  responses: { confirm: { action: 'accept', content: { note: 'ok ✓ 🎉' } } },
  outstanding: ['b'],
};

/** The codec as it was written against node:crypto and Buffer: the reference for byte identity. */
function referenceToken(argumentsDigest: string): string {
  const payload = {
    v: 1,
    m: binding.method,
    n: binding.name,
    d: argumentsDigest,
    p: binding.principal,
    x: NOW + 10 * 60_000,
    o: state.outstanding,
    r: state.responses,
  };
  const body = Buffer.from(JSON.stringify(payload), 'utf8').toString('base64url');
  const signature = createHmac('sha256', Buffer.from(KEY))
    .update(`agentd-mrtr.v1.${body}`)
    .digest('base64url');
  return `${body}.${signature}`;
}

const ARGUMENTS = { b: [2, 'ü'], a: { z: null, y: 1.5 } };
const REFERENCE_DIGEST = createHash('sha256')
  .update('{"a":{"y":1.5,"z":null},"b":[2,"ü"]}')
  .digest('base64url');

/** A fresh copy of the module whose first hash runs with `getBuiltinModule` answering nothing. */
async function withoutBuiltins(): Promise<{ module: RequestStateModule; asked: string[] }> {
  const asked: string[] = [];
  const host = process as { getBuiltinModule?: unknown };
  const saved = host.getBuiltinModule;
  host.getBuiltinModule = (id: string) => {
    asked.push(id);
    return undefined;
  };
  try {
    vi.resetModules();
    const module = await import('./request-state.js');
    // Resolve the hash and the codec now, while the host offers nothing.
    new module.RequestStateCodec({ key: KEY }).seal({ ...binding, argumentsDigest: 'x' }, state);
    return { module, asked };
  } finally {
    host.getBuiltinModule = saved;
  }
}

afterEach(() => {
  vi.resetModules();
});

describe('request state on every runtime', () => {
  it('the native path mints the tokens and digests node:crypto did', async () => {
    const { digestOf, RequestStateCodec } = await import('./request-state.js');
    expect(digestOf(ARGUMENTS)).toBe(REFERENCE_DIGEST);
    const codec = new RequestStateCodec({ key: KEY, now: () => NOW });
    const token = codec.seal({ ...binding, argumentsDigest: REFERENCE_DIGEST }, state);
    expect(token).toBe(referenceToken(REFERENCE_DIGEST));
  });

  it('the pure path mints the same bytes and opens tokens the native path sealed', async () => {
    const { module, asked } = await withoutBuiltins();
    expect(asked).toEqual(expect.arrayContaining(['node:crypto', 'node:buffer']));
    expect(module.digestOf(ARGUMENTS)).toBe(REFERENCE_DIGEST);
    const bound = { ...binding, argumentsDigest: REFERENCE_DIGEST };
    const pure = new module.RequestStateCodec({ key: KEY, now: () => NOW });
    const reference = referenceToken(REFERENCE_DIGEST);
    expect(pure.seal(bound, state)).toBe(reference);
    expect(pure.open(reference, bound)).toEqual(state);
    const tampered = `${reference.slice(0, -1)}${reference.endsWith('A') ? 'B' : 'A'}`;
    expect(() => pure.open(tampered, bound)).toThrow('requestState failed verification');
  });

  it('random keys come from crypto.getRandomValues and are per codec', async () => {
    const { RequestStateCodec } = await import('./request-state.js');
    const bound = { ...binding, argumentsDigest: REFERENCE_DIGEST };
    const token = new RequestStateCodec().seal(bound, state);
    expect(new RequestStateCodec().seal(bound, state)).not.toBe(token);
    expect(() => new RequestStateCodec().open(token, bound)).toThrow('requestState failed verification');
  });
});

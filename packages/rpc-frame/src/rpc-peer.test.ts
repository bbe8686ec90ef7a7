/** The shared NDJSON JSON-RPC peer: correlation, routing, aborts, violations and close. */
import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import type { JsonObject, JsonRpcNotification, JsonRpcResponse } from './messages.js';
import { RpcPeer } from './rpc-peer.js';
import { LocalError, WireError } from './wire-error.js';

type Options = ConstructorParameters<typeof RpcPeer>[0];

/** A peer whose writes are kept as parsed messages, and the lines to feed it. */
function setup(options: Omit<Options, 'write'> = {}) {
  const written: JsonObject[] = [];
  const peer = new RpcPeer({
    ...options,
    write: (text) => {
      expect(text.endsWith('\n')).toBe(true);
      written.push(JSON.parse(text) as JsonObject);
    },
  });
  return { peer, written };
}

const line = (message: object) => `${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`;

/**
 * The value a promise settled with by the next macrotask (if it has not, the test fails instead of
 * hanging), checking it settled once (a settle callback that counts is the only witness).
 */
async function settledOnce<T>(promise: Promise<T>): Promise<T> {
  let calls = 0;
  const counted = promise.then((v) => {
    calls++;
    return v;
  });
  const value = await Promise.race([
    counted,
    new Promise<'pending'>((r) => setImmediate(() => r('pending'))),
  ]);
  if (value === 'pending') expect.fail('the outcome has not settled');
  await Promise.resolve();
  expect(calls).toBe(1);
  return value;
}

describe('RpcPeer requests', () => {
  it('matches answers to their requests whatever their order, and forgets them once answered', async () => {
    const { peer, written } = setup();
    const first = peer.request('a', { n: 1 });
    const second = peer.request('b');
    expect(written).toEqual([
      { jsonrpc: '2.0', id: 1, method: 'a', params: { n: 1 } },
      { jsonrpc: '2.0', id: 2, method: 'b' },
    ]);
    expect(peer.pending).toBe(2);
    // Answered second first, split across chunks, the last line without its `\n` until end().
    const answers = `${line({ id: 2, result: { which: 'b' } })}${line({ id: 1, error: { code: -32602, message: 'bad', data: { f: 1 } } })}`;
    peer.push(answers.slice(0, 7));
    peer.push(new TextEncoder().encode(answers.slice(7, -1)));
    expect(await second.outcome).toEqual({ ok: true, result: { which: 'b' } });
    expect(peer.pending).toBe(1);
    peer.end();
    const outcome = await settledOnce(first.outcome);
    expect(outcome.ok).toBe(false);
    const error = (outcome as { error: Error }).error;
    expect(error).toBeInstanceOf(WireError);
    expect((error as WireError).toJSON()).toEqual({ code: -32602, message: 'bad', data: { f: 1 } });
    expect(peer.pending).toBe(0);
  });

  it('hands a reply to an unknown id, or to an id of the wrong type, to onStrayResponse', async () => {
    const strays: JsonRpcResponse[] = [];
    const { peer } = setup({ onStrayResponse: (r) => strays.push(r) });
    const call = peer.request('x');
    peer.push(
      line({ id: 99, result: {} }) + line({ id: '1', result: {} }) + line({ id: 1, result: { ok: 1 } }),
    );
    expect(await call.outcome).toEqual({ ok: true, result: { ok: 1 } });
    peer.push(line({ id: 1, result: { again: true } }));
    expect(strays.map((r) => r.id)).toEqual([99, '1', 1]);
    expect(peer.pending).toBe(0);
  });
});

describe('RpcPeer notifications', () => {
  it('routes a progress notification to the request whose token it carries, and the rest to every listener', () => {
    const seen: string[] = [];
    const { peer } = setup({ onNotification: (n) => seen.push(`peer:${n.method}`) });
    const listen = (name: string) => (n: JsonRpcNotification) => seen.push(`${name}:${n.method}`);
    peer.request('a', { _meta: { progressToken: 'ta' } }, { onNotification: listen('a') });
    peer.request('b', { _meta: { progressToken: 7 } }, { onNotification: listen('b') });
    peer.request('quiet', { _meta: { progressToken: 'tq' } });
    peer.push(
      line({ method: 'notifications/progress', params: { progressToken: 7, progress: 1 } }) +
        line({ method: 'notifications/progress', params: { progressToken: 'ta', progress: 1 } }) +
        line({ method: 'notifications/message', params: { level: 'info', data: 'x' } }) +
        line({ method: 'notifications/progress', params: { progressToken: 'tq', progress: 1 } }),
    );
    expect(seen).toEqual([
      'b:notifications/progress',
      'a:notifications/progress',
      'a:notifications/message',
      'b:notifications/message',
      // The quiet request listens to nothing: its progress is the peer's.
      'peer:notifications/progress',
    ]);
  });

  it('gives notifications to onNotification once no request listens', async () => {
    const seen: unknown[] = [];
    const { peer } = setup({ onNotification: (n) => seen.push(n.params) });
    const call = peer.request('a', {}, { onNotification: () => seen.push('request') });
    peer.push(line({ method: 'event', params: { n: 1 } }) + line({ id: 1, result: {} }));
    await call.outcome;
    peer.push(line({ method: 'event', params: { n: 2 } }));
    expect(seen).toEqual(['request', { n: 2 }]);
  });
});

describe('RpcPeer aborts', () => {
  it('sends notifications/cancelled, settles once as aborted, and ignores the late answer', async () => {
    const strays: JsonRpcResponse[] = [];
    const { peer, written } = setup({ onStrayResponse: (r) => strays.push(r) });
    const controller = new AbortController();
    const call = peer.request(
      'tools/call',
      { name: 't' },
      { signal: controller.signal, cancelParams: { reason: 'operator', _meta: { k: 1 } } },
    );
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);
    controller.abort();
    controller.abort();
    expect(written.slice(1)).toEqual([
      {
        jsonrpc: '2.0',
        method: 'notifications/cancelled',
        params: { reason: 'operator', _meta: { k: 1 }, requestId: 1 },
      },
    ]);
    const outcome = await settledOnce(call.outcome);
    expect(outcome.ok).toBe(false);
    const error = (outcome as { error: Error }).error;
    expect(error).toBeInstanceOf(LocalError);
    expect(error).toMatchObject({ code: 'aborted', message: 'tools/call cancelled' });
    expect(peer.pending).toBe(0);
    peer.push(line({ id: 1, result: { late: true } }));
    expect(strays).toEqual([{ jsonrpc: '2.0', id: 1, result: { late: true } }]);
    expect(await call.outcome).toEqual(outcome);
  });

  it('sends nothing for a request whose signal aborted before it was sent', async () => {
    const { peer, written } = setup();
    const call = peer.request('x', {}, { signal: AbortSignal.abort() });
    expect(await call.outcome).toMatchObject({ ok: false, error: { code: 'aborted' } });
    expect(written).toEqual([]);
    expect(peer.pending).toBe(0);
  });

  it('lets go of the signal once the request is answered', async () => {
    const { peer, written } = setup();
    const controller = new AbortController();
    const call = peer.request('x', {}, { signal: controller.signal });
    peer.push(line({ id: 1, result: {} }));
    await call.outcome;
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    controller.abort();
    expect(written).toHaveLength(1);
  });
});

describe('RpcPeer violations', () => {
  it('on an oversized line fails every pending request with frame_too_large and stops', async () => {
    const violations: unknown[] = [];
    const { peer, written } = setup({ maxFrameBytes: 64, onViolation: (v) => violations.push(v) });
    const calls = [peer.request('a'), peer.request('b')];
    peer.push(line({ id: 1, result: { text: 'x'.repeat(100) } }));
    expect(violations).toEqual([{ kind: 'oversized', limit: 64 }]);
    for (const call of calls) {
      const outcome = await settledOnce(call.outcome);
      expect(outcome).toMatchObject({ ok: false, error: { code: 'frame_too_large' } });
      expect((outcome as { error: Error }).error.message).toBe('response too large (limit 64 bytes)');
    }
    expect(peer.pending).toBe(0);
    // Closed: later requests fail at once, unsent; later input is ignored.
    const later = peer.request('c');
    expect(await later.outcome).toMatchObject({ ok: false, error: { code: 'frame_too_large' } });
    peer.push(line({ method: 'x' }));
    expect(written).toHaveLength(2);
    expect(violations).toHaveLength(1);
  });

  it('reports lines that are not JSON-RPC and goes on decoding', async () => {
    const violations: unknown[] = [];
    const { peer } = setup({ onViolation: (v) => violations.push(v) });
    const call = peer.request('a');
    peer.push(`oops\n${line({ result: 1, id: 5 })}${line({ id: 1, result: {} })}`);
    expect(await call.outcome).toEqual({ ok: true, result: {} });
    expect(violations).toMatchObject([
      { kind: 'invalid', code: -32700, reason: 'Parse error: not valid JSON' },
      { kind: 'invalid', code: -32600, value: { jsonrpc: '2.0', result: 1, id: 5 } },
    ]);
  });

  it('stops at once when a handler closes it: the rest of the chunk is ignored', async () => {
    const { peer } = setup({ onViolation: () => peer.close(new Error('broken')) });
    const call = peer.request('a');
    peer.push(`oops\n${line({ id: 1, result: {} })}`);
    expect(await call.outcome).toMatchObject({ ok: false, error: { message: 'broken' } });
  });
});

describe('RpcPeer close', () => {
  it('settles every pending request exactly once with the close error and leaves none pending', async () => {
    const { peer, written } = setup();
    const controller = new AbortController();
    const calls = [
      peer.request('a'),
      peer.request('b', {}, { signal: controller.signal }),
      peer.request('c'),
    ];
    const reason = new Error('connection closed');
    peer.close(reason);
    peer.close(new Error('second close'));
    expect(peer.pending).toBe(0);
    for (const call of calls) expect(await settledOnce(call.outcome)).toEqual({ ok: false, error: reason });
    // Nothing more goes out: not the abort's cancel, not a notification or an answer.
    controller.abort();
    peer.notify('n');
    peer.respond(1, { result: {} });
    peer.push(line({ id: 1, result: {} }));
    expect(await peer.request('d').outcome).toEqual({ ok: false, error: reason });
    expect(written.map((m) => m.method)).toEqual(['a', 'b', 'c']);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });
});

describe("RpcPeer and the other side's requests", () => {
  it('answers with what onRequest returns, or later through respond', () => {
    const { peer, written } = setup({
      onRequest: (request) => (request.method === 'roots/list' ? { result: { roots: [] } } : undefined),
    });
    peer.push(
      line({ id: 's1', method: 'roots/list' }) + line({ id: 's2', method: 'sampling/createMessage' }),
    );
    expect(written).toEqual([{ jsonrpc: '2.0', id: 's1', result: { roots: [] } }]);
    peer.respond('s2', { error: { code: -1, message: 'declined' } });
    expect(written[1]).toEqual({ jsonrpc: '2.0', id: 's2', error: { code: -1, message: 'declined' } });
  });

  it('answers -32601 without a handler, and -32603 (no detail) when the handler throws', () => {
    const plain = setup();
    plain.peer.push(line({ id: 3, method: 'ask', params: {} }));
    expect(plain.written).toEqual([
      { jsonrpc: '2.0', id: 3, error: { code: -32601, message: 'Method not found' } },
    ]);
    const failing = setup({
      onRequest: () => {
        throw new Error('secret detail');
      },
    });
    failing.peer.push(line({ id: 4, method: 'ask' }));
    expect(failing.written).toEqual([
      { jsonrpc: '2.0', id: 4, error: { code: -32603, message: 'Internal error' } },
    ]);
  });

  it('notifies', () => {
    const { peer, written } = setup();
    peer.notify('cancel', { id: 1 });
    peer.notify('ping');
    expect(written).toEqual([
      { jsonrpc: '2.0', method: 'cancel', params: { id: 1 } },
      { jsonrpc: '2.0', method: 'ping' },
    ]);
  });
});

describe('RpcPeer close without a reason', () => {
  it('settles with LocalError closed', async () => {
    const { peer } = setup();
    const call = peer.request('a');
    peer.close();
    expect(await call.outcome).toMatchObject({
      ok: false,
      error: { name: 'LocalError', code: 'closed', message: 'the connection closed' },
    });
  });
});

describe('RpcPeer and params JSON cannot encode', () => {
  it('throws from request and keeps nothing pending', () => {
    const { peer, written } = setup();
    const controller = new AbortController();
    expect(() => peer.request('x', { n: 1n }, { signal: controller.signal })).toThrow(TypeError);
    expect(peer.pending).toBe(0);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    expect(written).toEqual([]);
  });
});

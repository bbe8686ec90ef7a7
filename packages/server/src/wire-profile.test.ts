/** A WireProfile on the core: what it answers is sent as is; what it admits runs like any request. */
import { PassThrough } from 'node:stream';
import { contentTypeRefusal, MODERN_VERSION } from '@agentd/lifecycle';
import { type Classified, errorResponse, type JsonRpcRequest } from '@agentd/rpc-frame';
import { ndjsonWriter } from '@agentd/subscriptions';
import { memoryLogger, testHandler } from '@agentd/test-support';
import { describe, expect, it } from 'vitest';
import type { Peer } from './handler.js';
import { serveStdio } from './serve-stdio.js';
import { createServerCore } from './server-core.js';
import type { Admission, WireProfile } from './wire-profile.js';

const MODERN = { era: 'modern', meta: { protocolVersion: MODERN_VERSION, clientCapabilities: {} } } as const;

/** Answers invalid frames with -32099, and runs id-less messages under minted ids, answered `id: null`. */
function toyProfile(): WireProfile & { admitted: Classified[] } {
  let minted = 0;
  const admitted: Classified[] = [];
  return {
    admitted,
    postHeadersRefusal: contentTypeRefusal,
    admit(frame): Admission {
      admitted.push(frame);
      if (frame.kind === 'invalid' || frame.kind === 'response') {
        return { kind: 'answer', response: errorResponse(null, { code: -32099, message: 'toy refusal' }) };
      }
      if (frame.message.method === 'toy/throw') throw new Error('profile bug: secret');
      if (frame.kind === 'request') {
        return { kind: 'run', request: frame.message, classified: MODERN, answerId: frame.message.id };
      }
      const request: JsonRpcRequest = { ...frame.message, id: `minted-${++minted}` };
      return { kind: 'run', request, classified: MODERN, answerId: null };
    },
  };
}

function profiledCore() {
  const profile = toyProfile();
  const logger = memoryLogger();
  const core = createServerCore({
    handler: testHandler(),
    serverInfo: { name: 't', version: '1' },
    logger,
    profile,
    maxInFlightPerConnection: 1,
  });
  return { core, profile, logger };
}

function openConnection(core: ReturnType<typeof profiledCore>['core']) {
  const peer: Peer = { origin: 'management', connectionId: 'c1', transport: 'test', attributes: {} };
  return core.openConnection(peer, ndjsonWriter(new PassThrough(), { id: 'c1' }));
}

describe('WireProfile', () => {
  it('makes id-less messages, not responses, run as requests; without a profile only requests do', () => {
    const request: Classified = { kind: 'request', message: { jsonrpc: '2.0', id: 1, method: 'test/echo' } };
    const notification: Classified = {
      kind: 'notification',
      message: { jsonrpc: '2.0', method: 'test/echo' },
    };
    const response: Classified = { kind: 'response', message: { jsonrpc: '2.0', id: 1, result: {} } };
    const profiled = openConnection(profiledCore().core);
    expect([request, notification, response].map((f) => profiled.runsAsRequest(f))).toEqual([
      true,
      true,
      false,
    ]);
    const plain = createServerCore({ handler: testHandler(), serverInfo: { name: 't', version: '1' } });
    const peer: Peer = { origin: 'management', connectionId: 'p1', transport: 'test', attributes: {} };
    const connection = plain.openConnection(peer, ndjsonWriter(new PassThrough(), { id: 'p1' }));
    expect([request, notification, response].map((f) => connection.runsAsRequest(f))).toEqual([
      true,
      false,
      false,
    ]);
  });

  it('sends what the profile answers, even for a message the specification would not answer', async () => {
    const { core, profile } = profiledCore();
    const connection = openConnection(core);
    const answer = await connection.handle({ kind: 'invalid', code: -32600, reason: 'x', id: null });
    expect(answer).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32099, message: 'toy refusal' } });
    expect(profile.admitted).toHaveLength(1);
  });

  it('runs an admitted id-less message as a request of the era it names, answered with the given id', async () => {
    const { core } = profiledCore();
    const connection = openConnection(core);
    const answer = await connection.handle({
      kind: 'notification',
      message: { jsonrpc: '2.0', method: 'test/echo', params: { a: 1 } },
    });
    expect(answer).toMatchObject({
      jsonrpc: '2.0',
      id: null,
      result: { params: { a: 1 }, era: 'modern', protocolVersion: MODERN_VERSION, resultType: 'complete' },
    });
  });

  it('keeps the core rules for what it admits: internal errors hidden, shutdown answered -32000', async () => {
    const { core, logger } = profiledCore();
    const connection = openConnection(core);
    const boom = await connection.handle({
      kind: 'request',
      message: { jsonrpc: '2.0', id: 1, method: 'test/boom' },
    });
    expect(boom).toEqual({ jsonrpc: '2.0', id: 1, error: { code: -32603, message: 'Internal error' } });
    const broken = await connection.handle({
      kind: 'request',
      message: { jsonrpc: '2.0', id: 2, method: 'toy/throw' },
    });
    expect(broken).toEqual({ jsonrpc: '2.0', id: 2, error: { code: -32603, message: 'Internal error' } });
    expect(
      logger.records.some(
        (r) => r.level === 'error' && String(r.fields.error).includes('profile bug: secret'),
      ),
    ).toBe(true);
    const blocked = connection.handle({
      kind: 'request',
      message: { jsonrpc: '2.0', id: 3, method: 'test/block' },
    });
    await core.close();
    expect(await blocked).toMatchObject({ id: 3, error: { code: -32000 } });
  });

  it('over stdio, id-less messages wait for a slot like requests, and each is answered', async () => {
    const { core } = profiledCore();
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const lines: unknown[] = [];
    stdout.on('data', (chunk: Buffer) => {
      for (const line of chunk.toString('utf8').split('\n')) if (line !== '') lines.push(JSON.parse(line));
    });
    const done = serveStdio(core, { stdin, stdout, redirectConsole: false, halfCloseDrainMs: 5_000 });
    for (let tag = 0; tag < 5; tag++) {
      stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'test/slow', params: { ms: 1, tag } })}\n`);
    }
    stdin.end('not json\n');
    await done;
    expect(lines).toHaveLength(6);
    const tags = lines.flatMap((line) => {
      const result = (line as { result?: { tag?: number } }).result;
      return result?.tag === undefined ? [] : [result.tag];
    });
    expect(tags.sort()).toEqual([0, 1, 2, 3, 4]);
    expect(lines).toContainEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32099, message: 'toy refusal' },
    });
  });
});

/** Operations in classic exposure, the operation index, two peers with colliding ids, surface-change events. */

import type { JsonObject, WireError } from '@agentd/rpc-frame';
import { silentLogger } from '@agentd/rpc-frame';
import type { Peer } from '@agentd/server';
import { describe, expect, it, vi } from 'vitest';
import type { ClientFilters } from './client-filters.js';
import { Dispatcher } from './dispatcher.js';
import { asWireError, makeContext, resolvedUnexpectedly, rpc } from './test-support/request-context.js';

const quiet = silentLogger;

const STDIO: ClientFilters = {
  visible: { deny: ['command_*'] },
  callable: { allow: { query_servers: { region: ['eu', 'us'] } } },
};

function classic() {
  const d = new Dispatcher({
    logger: quiet,
    filtersFor: (peer: Peer) => (peer.origin === 'stdio' ? STDIO : undefined),
  });
  d.registerOperation({
    kind: 'query',
    id: 'servers',
    description: 'List servers',
    args: {
      type: 'object',
      properties: {
        region: { type: 'string', description: 'where' },
        tags: { type: 'array', items: { type: 'string' } },
      },
      required: ['region'],
    },
    outputType: 'Server[]',
    handler: (args) => [{ name: 'a', region: args.region }],
  });
  d.registerOperation({
    kind: 'command',
    id: 'drain',
    description: 'Drain the daemon',
    handler: () => ({ drained: true }),
  });
  d.registerOperation({
    kind: 'report',
    id: 'stats',
    description: 'Stats',
    outputType: 'Stats',
    handler: () => ({ n: 1 }),
  });
  d.registerOperation({ kind: 'view', id: 'live.status', description: 'Live status', handler: () => 'up' });
  return d;
}

const stdio = () => makeContext({ peer: { origin: 'stdio', connectionId: 's' } });

describe('operations (classic exposure)', () => {
  it('exposes one tool per operation named {kind}_{id}', async () => {
    const list = await classic().handle(rpc('tools/list'), makeContext());
    expect((list.tools as JsonObject[]).map((t) => t.name)).toEqual([
      'command_drain',
      'query_servers',
      'report_stats',
      'view_live.status',
    ]);
    const query = (list.tools as JsonObject[]).find((t) => t.name === 'query_servers');
    expect(query?.annotations).toEqual({ readOnlyHint: true });
  });

  it('builds the operation index sorted by kind then id, with TypeScript arg types', () => {
    const index = classic().operationIndex();
    expect(index.map((e) => `${e.kind}:${e.id}`)).toEqual([
      'query:servers',
      'view:live.status',
      'report:stats',
      'command:drain',
    ]);
    expect(index[0]).toEqual({
      id: 'servers',
      kind: 'query',
      description: 'List servers',
      args: [
        { name: 'region', tsType: 'string', optional: false, description: 'where' },
        { name: 'tags', tsType: 'string[]', optional: true },
      ],
      outputType: 'Server[]',
    });
  });

  it('filters the index, the tool list and calls per peer', async () => {
    const d = classic();
    const stdioPeer = stdio().peer;
    expect(d.operationIndex(stdioPeer).map((e) => e.id)).toEqual(['servers', 'live.status', 'stats']);
    const list = await d.handle(rpc('tools/list'), stdio());
    expect((list.tools as JsonObject[]).map((t) => t.name)).not.toContain('command_drain');
    const hidden = await d
      .handle(rpc('tools/call', { name: 'command_drain' }), stdio())
      .then(resolvedUnexpectedly, asWireError);
    expect(hidden.toJSON()).toEqual({ code: -32602, message: 'Unknown tool: command_drain' });
    // the management peer still reaches it
    const drained = await d.handle(rpc('tools/call', { name: 'command_drain' }), makeContext());
    expect(drained.structuredContent).toEqual({ drained: true });
  });

  it('gives isError with the reason when visible but not callable with these arguments', async () => {
    const d = classic();
    const refused = await d.handle(
      rpc('tools/call', { name: 'query_servers', arguments: { region: 'ap' } }),
      stdio(),
    );
    expect(refused).toEqual({
      content: [{ type: 'text', text: 'argument `region` value not in allowlist' }],
      isError: true,
    });
    const allowed = await d.handle(
      rpc('tools/call', { name: 'query_servers', arguments: { region: 'eu' } }),
      stdio(),
    );
    expect(allowed.isError).toBeUndefined();
  });
});

describe('two peers, one dispatcher', () => {
  it('never mixes results when request ids collide', async () => {
    const d = new Dispatcher({
      logger: quiet,
      filtersFor: (peer) =>
        peer.connectionId === 'b'
          ? { visible: { deny: ['query_secret'] } }
          : { visible: { allow: ['query_*'] } },
    });
    d.registerOperation({
      kind: 'query',
      id: 'whoami',
      description: 'who',
      handler: async (_args, ctx) => {
        // Finish in a shuffled order: a random number of event-loop turns.
        for (let n = Math.floor(Math.random() * 5); n > 0; n--) await new Promise((r) => setImmediate(r));
        return { connection: ctx.peer.connectionId, requestId: ctx.requestId };
      },
    });
    d.registerOperation({ kind: 'query', id: 'secret', description: 's', handler: () => 'secret' });
    d.registerOperation({ kind: 'command', id: 'act', description: 'a', handler: () => 'acted' });
    const calls: Promise<[string, JsonObject | WireError]>[] = [];
    for (let id = 1; id <= 20; id++) {
      for (const connectionId of ['a', 'b']) {
        const context = makeContext({ requestId: id, peer: { connectionId } });
        const name = id % 5 === 0 ? 'query_secret' : id % 7 === 0 ? 'command_act' : 'query_whoami';
        calls.push(
          d
            .handle(rpc('tools/call', { name }, id), context)
            .then(
              (r) => r,
              (e: unknown) => e as WireError,
            )
            .then((r) => [`${connectionId}:${id}:${name}`, r]),
        );
      }
    }
    for (const [label, result] of await Promise.all(calls)) {
      const [connectionId, id, name] = label.split(':') as [string, string, string];
      if (name === 'query_whoami') {
        expect((result as JsonObject).structuredContent).toEqual({
          connection: connectionId,
          requestId: Number(id),
        });
      } else if (name === 'query_secret') {
        if (connectionId === 'b') expect((result as WireError).message).toBe('Unknown tool: query_secret');
        else expect((result as JsonObject).content).toEqual([{ type: 'text', text: 'secret' }]);
      } else if (connectionId === 'a') {
        expect((result as WireError).message).toBe('Unknown tool: command_act');
      } else {
        expect((result as JsonObject).content).toEqual([{ type: 'text', text: 'acted' }]);
      }
    }
    const listA = await d.handle(rpc('tools/list', {}, 1), makeContext({ peer: { connectionId: 'a' } }));
    const listB = await d.handle(rpc('tools/list', {}, 1), makeContext({ peer: { connectionId: 'b' } }));
    expect((listA.tools as JsonObject[]).map((t) => t.name)).toEqual(['query_secret', 'query_whoami']);
    expect((listB.tools as JsonObject[]).map((t) => t.name)).toEqual(['command_act', 'query_whoami']);
  });
});

describe('surface changes', () => {
  it('emits one debounced event per burst, only after the dispatcher started serving', async () => {
    // Fake timers: the debounce period passes when the test says, whatever the machine's load.
    vi.useFakeTimers();
    try {
      const d = new Dispatcher({ logger: quiet, surfaceDebounceMs: 5 });
      const events: string[][] = [];
      d.onSurfaceChanged((kinds) => events.push([...kinds]));
      d.registerTool({ name: 'before', description: 'b', handler: () => 1 });
      await vi.advanceTimersByTimeAsync(20);
      expect(events).toEqual([]);
      await d.handle(rpc('tools/list'), makeContext());
      d.registerTool({ name: 'a', description: 'a', handler: () => 1 });
      d.registerTool({ name: 'b', description: 'b', handler: () => 1 });
      d.registerPrompt({ name: 'p', description: 'p', get: () => 'x' });
      d.removeTool('a');
      await vi.advanceTimersByTimeAsync(30);
      expect(events).toEqual([['tools', 'prompts']]);
      d.registerOperation({ kind: 'query', id: 'q', description: 'q', handler: () => 1 });
      await vi.advanceTimersByTimeAsync(30);
      expect(events[1]).toEqual(['tools', 'resources']);
      d.notifySurfaceChanged(['resources']);
      await vi.advanceTimersByTimeAsync(30);
      expect(events[2]).toEqual(['resources']);
      await d.close();
    } finally {
      vi.useRealTimers();
    }
  });

  it('serves the new surface right after a change', async () => {
    const d = new Dispatcher({ logger: quiet });
    d.registerTool({ name: 'a', description: 'a', handler: () => 1 });
    const first = await d.handle(rpc('tools/list'), makeContext());
    d.registerTool({ name: 'b', description: 'b', handler: () => 1 });
    const second = await d.handle(rpc('tools/list'), makeContext());
    expect((first.tools as JsonObject[]).length).toBe(1);
    expect((second.tools as JsonObject[]).length).toBe(2);
    await d.close();
  });
});

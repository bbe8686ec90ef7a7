/** Code Mode's principal key and lane per peer, and what dispatch hands the runner (a real one). */

import { EventEmitter, once } from 'node:events';
import { CodeModeRunner } from '@agentd/codemode';
import type { JsonObject } from '@agentd/rpc-frame';
import { silentLogger } from '@agentd/rpc-frame';
import { afterEach, describe, expect, it } from 'vitest';
import { codeModeCaller } from './code-mode-caller.js';
import { Dispatcher } from './dispatcher.js';
import { makeContext, peer, rpc } from './test-support/request-context.js';

describe('codeModeCaller', () => {
  it('one principal for all anonymous HTTP peers, however many connections they open', () => {
    const a = codeModeCaller(peer({ origin: 'anonymous', transport: 'http', connectionId: 'http-1' }));
    const b = codeModeCaller(peer({ origin: 'anonymous', transport: 'http', connectionId: 'http-2' }));
    expect(a).toEqual({ principal: 'anonymous', priority: false });
    expect(b).toEqual(a);
  });

  it('an authenticated peer is its principal; a VM is its CID; local connections are their own', () => {
    const auth = { principal: 'alice', scopes: [], scheme: 'token' } as const;
    expect(codeModeCaller(peer({ transport: 'http', connectionId: 'h-1', auth }))).toEqual({
      principal: 'principal:alice',
      priority: true,
    });
    // Without credentials an HTTP peer is anonymous even if a transport labelled it otherwise.
    expect(codeModeCaller(peer({ transport: 'http' }))).toEqual({ principal: 'anonymous', priority: false });
    expect(codeModeCaller(peer({ transport: 'vsock', connectionId: 'v-9', attributes: { cid: 7 } }))).toEqual(
      {
        principal: 'vsock:7',
        priority: true,
      },
    );
    expect(codeModeCaller(peer({ transport: 'unix', connectionId: 'u-1' }))).toEqual({
      principal: 'unix:u-1',
      priority: true,
    });
    expect(codeModeCaller(peer({ transport: 'stdio', connectionId: 's' })).priority).toBe(true);
  });

  it('the embedder’s trust decision picks the lane when given', () => {
    const trusted = (p: { attributes: Readonly<Record<string, unknown>> }) =>
      p.attributes.principal === 'ops';
    expect(
      codeModeCaller(peer({ transport: 'http', attributes: { principal: 'ops' } }), trusted).priority,
    ).toBe(true);
    expect(codeModeCaller(peer({ transport: 'unix' }), trusted).priority).toBe(false);
  });
});

describe('execute is scheduled per caller', () => {
  let runner: CodeModeRunner | undefined;
  afterEach(async () => {
    await runner?.close();
    runner = undefined;
  });

  it('two anonymous HTTP connections share one running cap; a local caller does not wait for them', async () => {
    runner = new CodeModeRunner({ workers: 1, maxRunningPerPrincipal: 1 });
    const releases: Array<() => void> = [];
    const entered: string[] = [];
    const entries = new EventEmitter();
    const arrived = async (who: string): Promise<void> => {
      if (!entered.includes(who)) await once(entries, who);
    };
    const d = new Dispatcher({ exposure: 'codemode', codeMode: { runner }, logger: silentLogger });
    d.registerOperation({
      kind: 'query',
      id: 'hold',
      description: 'Waits until the test releases it',
      handler: (args) =>
        new Promise((resolve) => {
          entered.push(String(args.who));
          entries.emit(String(args.who));
          releases.push(() => resolve('released'));
        }),
    });
    const call = (who: string, transport: string, connectionId: string) =>
      d.handle(
        rpc('tools/call', {
          name: 'execute',
          arguments: { code: `return await api.query('hold', { who: '${who}' });` },
        }),
        makeContext({ peer: { transport, connectionId } }),
      );
    const first = call('anon-1', 'http', 'http-a');
    await arrived('anon-1');
    const second = call('anon-2', 'http', 'http-b');
    const local = call('local', 'unix', 'unix-a');
    await arrived('local');
    expect(entered).toEqual(['anon-1', 'local']);
    expect(runner.stats()).toMatchObject({ running: 2, queued: 1 });
    for (const release of releases.splice(0)) release();
    await arrived('anon-2');
    for (const release of releases.splice(0)) release();
    for (const result of await Promise.all([first, second, local])) {
      expect((result.structuredContent as JsonObject).result).toBe('released');
    }
  });
});

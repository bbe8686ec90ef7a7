/**
 * Issue 12 items 6 and 9: an HTTP peer says whether it authenticated and as whom (anonymous
 * peers are never `management`), and legacy session quotas are per principal: at the cap, one
 * principal's `initialize` never ends another principal's idle session.
 */
import type { RequestContext } from '@agentd/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, modernPost, startHarness } from './test-support/harness.js';

const ALICE = 'alice-token-0123456789';
const BOB = 'bob-token-0123456789ab';

const initialize = (url: string, token?: string) =>
  fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    }),
  });

const listTools = (url: string, session: string, token: string) =>
  fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${token}`,
      'mcp-session-id': session,
      'mcp-protocol-version': '2025-11-25',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  });

describe('who an HTTP peer is', () => {
  const seen: RequestContext[] = [];
  let open: Harness;
  let authed: Harness;
  beforeAll(async () => {
    open = await startHarness({}, { onRequest: (c) => seen.push(c) });
    authed = await startHarness(
      { auth: { tokens: [{ token: ALICE, name: 'alice', filters: { visible: { deny: ['x'] } } }] } },
      { onRequest: (c) => seen.push(c) },
    );
  });
  afterAll(async () => {
    await open.close();
    await authed.close();
  });

  it('without credentials: origin anonymous, no auth (never management)', async () => {
    seen.length = 0;
    const res = await modernPost(open.url, 'tools/list');
    expect(res.status).toBe(200);
    await res.text();
    const peer = seen.at(-1)?.peer;
    expect(peer?.origin).toBe('anonymous');
    expect(peer?.auth).toBeUndefined();
    expect(peer?.attributes.principal).toBeUndefined();
  });

  it('with a static token: management, auth says who', async () => {
    seen.length = 0;
    const res = await modernPost(
      authed.url,
      'tools/list',
      {},
      { headers: { authorization: `Bearer ${ALICE}` } },
    );
    expect(res.status).toBe(200);
    await res.text();
    const peer = seen.at(-1)?.peer;
    expect(peer?.origin).toBe('management');
    expect(peer?.auth).toEqual({ principal: 'alice', scopes: [], scheme: 'token' });
    expect(peer?.attributes).toMatchObject({ principal: 'alice', filters: { visible: { deny: ['x'] } } });
  });
});

describe('legacy session quotas per principal', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({
      maxSessions: 4,
      maxSessionsPerPrincipal: 2,
      auth: {
        tokens: [
          { token: ALICE, name: 'alice' },
          { token: BOB, name: 'bob' },
        ],
      },
    });
  });
  afterAll(() => h.close());

  it("alice's initializes past her quota end only her own idle sessions; bob's stay", async () => {
    const bobSessions: string[] = [];
    for (let i = 0; i < 2; i++) {
      const res = await initialize(h.url, BOB);
      expect(res.status).toBe(200);
      bobSessions.push(res.headers.get('mcp-session-id') as string);
      await res.text();
    }
    const aliceSessions: string[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await initialize(h.url, ALICE);
      expect(res.status).toBe(200);
      aliceSessions.push(res.headers.get('mcp-session-id') as string);
      await res.text();
    }
    expect(h.transport.sessionCount).toBe(4);
    for (const session of bobSessions) {
      const res = await listTools(h.url, session, BOB);
      expect(res.status).toBe(200);
      await res.text();
    }
    // Alice's oldest sessions made room for her newest.
    const oldest = await listTools(h.url, aliceSessions[0] as string, ALICE);
    expect(oldest.status).toBe(404);
    await oldest.text();
    const newest = await listTools(h.url, aliceSessions[4] as string, ALICE);
    expect(newest.status).toBe(200);
    await newest.text();
  });
});

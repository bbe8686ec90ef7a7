/** transport-http with a profiled core: each POST's body goes to the profile, and every answer is 200 JSON. */
import { contentTypeRefusal, MODERN_VERSION, refuse } from '@agentd/lifecycle';
import { errorResponse, silentLogger } from '@agentd/rpc-frame';
import { createServerCore, type WireProfile } from '@agentd/server';
import { testHandler } from '@agentd/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveHttp } from './node.js';

const MODERN = { era: 'modern', meta: { protocolVersion: MODERN_VERSION, clientCapabilities: {} } } as const;

/**
 * Refuses with -32099 what is not a request (echoing the parse/shape code), and runs id-less
 * requests as `toy-n`. Its header rule: JSON content, and no `x-toy-refuse` header.
 */
const toy: WireProfile = {
  postHeadersRefusal: (headers) =>
    headers.get('x-toy-refuse') === null ? contentTypeRefusal(headers) : refuse.notAcceptable(),
  admit(frame) {
    if (frame.kind === 'invalid' || frame.kind === 'response') {
      const code = frame.kind === 'invalid' ? frame.code : 0;
      return { kind: 'answer', response: errorResponse(null, { code: -32099, message: `toy ${code}` }) };
    }
    const request = frame.kind === 'request' ? frame.message : { ...frame.message, id: 'toy-1' };
    return {
      kind: 'run',
      request,
      classified: MODERN,
      answerId: frame.kind === 'request' ? request.id : null,
    };
  },
};

let transport: Awaited<ReturnType<typeof serveHttp>>;
let url: string;
beforeAll(async () => {
  const core = createServerCore({
    handler: testHandler(),
    serverInfo: { name: 'profiled', version: '1' },
    logger: silentLogger,
    lifecycle: { versions: [MODERN_VERSION] },
    profile: toy,
  });
  transport = await serveHttp(core);
  url = `http://127.0.0.1:${transport.address.port}/mcp`;
});
afterAll(() => transport.close(0));

const post = (body: string, headers: Record<string, string> = { 'content-type': 'application/json' }) =>
  fetch(url, { method: 'POST', headers, body });

describe('a profiled core over transport-http', () => {
  it('answers 200 JSON with no Accept or protocol headers, for results and refusals alike', async () => {
    const ran = await post(JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'test/echo', params: { x: 1 } }));
    expect(ran.status).toBe(200);
    expect(ran.headers.get('content-type')).toBe('application/json');
    expect(await ran.json()).toMatchObject({ id: 4, result: { params: { x: 1 }, era: 'modern' } });
    const idless = await post(JSON.stringify({ jsonrpc: '2.0', method: 'test/echo' }));
    expect(await idless.json()).toMatchObject({ id: null, result: { era: 'modern' } });
    const notJson = await post('{"jsonrpc":');
    expect(notJson.status).toBe(200);
    expect(await notJson.json()).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32099, message: 'toy -32700' },
    });
    const response = await post(JSON.stringify({ jsonrpc: '2.0', id: 9, result: {} }));
    expect(await response.json()).toMatchObject({ error: { code: -32099, message: 'toy 0' } });
  });

  it('keeps the HTTP refusals: 415 for another media type, 405 for GET, 403 for a foreign Origin', async () => {
    expect((await post('{}', { 'content-type': 'text/plain' })).status).toBe(415);
    const get = await fetch(url);
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
    const foreign = await post('{}', { 'content-type': 'application/json', origin: 'https://evil.example' });
    expect(foreign.status).toBe(403);
  });

  it("judges a POST's headers by the profile's rule, not the specification's Accept rule", async () => {
    const echo = JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'test/echo' });
    const html = await post(echo, { 'content-type': 'application/json', accept: 'text/html' });
    expect(html.status).toBe(200);
    expect(await html.json()).toMatchObject({ id: 5, result: { era: 'modern' } });
    const refused = await post(echo, { 'content-type': 'application/json', 'x-toy-refuse': '1' });
    expect(refused.status).toBe(406);
    expect(await refused.json()).toMatchObject({ id: null, error: { code: refuse.notAcceptable().code } });
  });
});

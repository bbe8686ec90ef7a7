/** The Streamable HTTP classification: eras, envelope checks and mirrored headers, as pure functions. */
import { describe, expect, it } from 'vitest';
import {
  classifyHttpPost,
  contentTypeRefusal,
  type HeaderReader,
  postHeadersRefusal,
  streamAcceptRefusal,
} from './http-post-route.js';

/** Raw header values, as a host hands them over (lower-case names). */
const h = (record: Record<string, string>): HeaderReader => ({ get: (name) => record[name] ?? null });

const meta = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
};
const headers = { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'echo' };
const DUAL = { legacy: true };
const MODERN_ONLY = { legacy: false, lifecycle: { versions: ['2026-07-28'] } };

function body(params: Record<string, unknown> | undefined, method = 'tools/call', id: number | null = 1) {
  const message: Record<string, unknown> = { jsonrpc: '2.0', method };
  if (id !== null) message.id = id;
  if (params !== undefined) message.params = params;
  return { ok: true as const, value: message };
}

function refusal(route: ReturnType<typeof classifyHttpPost>) {
  if (route.kind !== 'refuse') throw new Error(`expected a refusal, got ${route.kind}`);
  return { reason: route.refusal.reason, ...route.refusal.toJSON(), id: route.id };
}

describe('classifyHttpPost: modern envelope', () => {
  it('lets a request through when headers mirror the body, including a base64-encoded name', () => {
    expect(classifyHttpPost(body({ _meta: meta, name: 'echo' }), h(headers), DUAL).kind).toBe(
      'modern-request',
    );
    const name = 'résumé';
    const encoded = `=?base64?${Buffer.from(name).toString('base64')}?=`;
    const route = classifyHttpPost(body({ _meta: meta, name }), h({ ...headers, 'mcp-name': encoded }), DUAL);
    expect(route.kind).toBe('modern-request');
  });

  it('hands the core the checked _meta with the route, and puts header mismatches before version support', () => {
    const route = classifyHttpPost(body({ _meta: meta, name: 'echo' }), h(headers), DUAL);
    expect(route).toMatchObject({
      kind: 'modern-request',
      classified: { era: 'modern', meta: { protocolVersion: '2026-07-28', clientCapabilities: {} } },
    });
    const unknown = { ...meta, 'io.modelcontextprotocol/protocolVersion': '2099-01-01' };
    const mirrored = { ...headers, 'mcp-protocol-version': '2099-01-01' };
    expect(
      refusal(classifyHttpPost(body({ _meta: unknown, name: 'echo' }), h(mirrored), DUAL)),
    ).toMatchObject({
      reason: 'unsupported-version',
      code: -32022,
    });
    expect(refusal(classifyHttpPost(body({ _meta: unknown, name: 'echo' }), h(headers), DUAL))).toMatchObject(
      {
        reason: 'header-mismatch',
        code: -32020,
      },
    );
  });

  it('reports missing _meta fields as -32602 before any header check', () => {
    const noVersion = { 'io.modelcontextprotocol/clientCapabilities': {} };
    expect(refusal(classifyHttpPost(body({ _meta: noVersion, name: 'echo' }), h({}), DUAL))).toMatchObject({
      reason: 'missing-protocol-version',
      code: -32602,
      id: 1,
    });
    const noCaps = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' };
    expect(refusal(classifyHttpPost(body({ _meta: noCaps, name: 'echo' }), h({}), DUAL))).toMatchObject({
      reason: 'missing-client-capabilities',
      code: -32602,
    });
    const badLevel = { ...meta, 'io.modelcontextprotocol/logLevel': 'loud' };
    expect(
      refusal(classifyHttpPost(body({ _meta: badLevel, name: 'echo' }), h(headers), DUAL)),
    ).toMatchObject({ reason: 'bad-log-level', code: -32602 });
    // A modern version header makes a bare body modern: it then lacks its _meta.
    const bare = classifyHttpPost(body({ name: 'echo' }), h(headers), DUAL);
    expect(refusal(bare)).toMatchObject({ reason: 'missing-meta', code: -32602 });
  });

  it('reports a header/body version mismatch as -32020, not -32022', () => {
    const v999 = { ...meta, 'io.modelcontextprotocol/protocolVersion': 'v999.0.0' };
    const error = refusal(classifyHttpPost(body({ _meta: v999, name: 'echo' }), h(headers), DUAL));
    expect(error).toMatchObject({ reason: 'header-mismatch', code: -32020 });
    expect(error.message).toContain('MCP-Protocol-Version');
  });

  it('requires Mcp-Method and Mcp-Name where the body has them', () => {
    const call = body({ _meta: meta, name: 'echo' });
    const { 'mcp-method': _m, ...noMethod } = headers;
    expect(refusal(classifyHttpPost(call, h(noMethod), DUAL)).code).toBe(-32020);
    const { 'mcp-name': _n, ...noName } = headers;
    expect(refusal(classifyHttpPost(call, h(noName), DUAL)).code).toBe(-32020);
    expect(refusal(classifyHttpPost(body({ _meta: meta, name: 'other' }), h(headers), DUAL)).message).toBe(
      "Header mismatch: Mcp-Name header value 'echo' does not match body value 'other'",
    );
    const list = body({ _meta: meta }, 'tools/list');
    expect(classifyHttpPost(list, h({ ...noName, 'mcp-method': 'tools/list' }), DUAL).kind).toBe(
      'modern-request',
    );
    const read = body({ _meta: meta, uri: 'test://a' }, 'resources/read');
    const readHeaders = h({ ...headers, 'mcp-method': 'resources/read', 'mcp-name': 'test://a' });
    expect(classifyHttpPost(read, readHeaders, DUAL).kind).toBe('modern-request');
    expect(refusal(classifyHttpPost(call, h({ ...headers, 'mcp-name': ' echo' }), DUAL)).code).toBe(-32020);
  });

  it('refuses methods removed in 2026-07-28 before looking at headers', () => {
    expect(refusal(classifyHttpPost(body({ _meta: meta }, 'ping'), h({}), DUAL))).toMatchObject({
      reason: 'removed-in-modern',
      code: -32601,
      message: 'Method not found: ping (removed in the 2026-07-28 revision)',
    });
  });

  it('accepts modern notifications and refuses responses', () => {
    expect(classifyHttpPost(body({ _meta: meta }, 'notifications/x', null), h(headers), DUAL).kind).toBe(
      'modern-notification',
    );
    const response = { ok: true as const, value: { jsonrpc: '2.0', id: 1, result: {} } };
    expect(refusal(classifyHttpPost(response, h(headers), MODERN_ONLY))).toMatchObject({
      reason: 'response-not-allowed',
      code: -32600,
      id: null,
    });
  });
});

describe('classifyHttpPost: legacy and modern-only servers', () => {
  it('routes legacy traffic with its session id, initialize without one', () => {
    const init = classifyHttpPost(body({ protocolVersion: '2025-06-18' }, 'initialize'), h({}), DUAL);
    expect(init).toMatchObject({ kind: 'legacy', sessionId: undefined });
    const list = classifyHttpPost(body({}, 'tools/list'), h({ 'mcp-session-id': 's1' }), DUAL);
    expect(list).toMatchObject({ kind: 'legacy', sessionId: 's1' });
    // A modern version header alongside a session is that session's mismatch, not a modern POST.
    const mixed = h({ 'mcp-session-id': 's1', 'mcp-protocol-version': '2026-07-28' });
    expect(classifyHttpPost(body({}, 'tools/list'), mixed, DUAL).kind).toBe('legacy');
  });

  it('refuses a session-less legacy request and an initialize carrying a session', () => {
    expect(refusal(classifyHttpPost(body({}, 'tools/list'), h({}), DUAL))).toMatchObject({
      reason: 'session-required',
      code: -32600,
    });
    const init = body({ protocolVersion: '2025-06-18' }, 'initialize');
    expect(refusal(classifyHttpPost(init, h({ 'mcp-session-id': 's' }), DUAL)).reason).toBe(
      'initialize-with-session',
    );
  });

  it('serves bare requests on a modern-only server as the core does', () => {
    const init = refusal(
      classifyHttpPost(body({ protocolVersion: '2025-06-18' }, 'initialize'), h({}), MODERN_ONLY),
    );
    expect(init).toMatchObject({
      reason: 'initialize-not-served',
      code: -32601,
      data: { supported: ['2026-07-28'] },
    });
    expect(refusal(classifyHttpPost(body(undefined, 'tools/list'), h({}), MODERN_ONLY))).toMatchObject({
      reason: 'missing-meta',
      code: -32602,
      message: 'Invalid params: params._meta is required (protocol 2026-07-28)',
    });
  });

  it('answers bodies that are not JSON-RPC with the rpc-frame verdict', () => {
    expect(classifyHttpPost({ ok: false }, h({}), DUAL)).toEqual({
      kind: 'invalid',
      response: { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } },
    });
    const route = classifyHttpPost({ ok: true, value: [1] }, h({}), DUAL);
    expect(route.kind === 'invalid' && route.response.error.code).toBe(-32600);
  });
});

describe('HTTP header refusals', () => {
  it('needs both media types in Accept and JSON content', () => {
    const json = { 'content-type': 'application/json; charset=utf-8' };
    expect(postHeadersRefusal(h({ ...json, accept: 'application/json, text/event-stream' }))).toBeUndefined();
    expect(postHeadersRefusal(h({ ...json, accept: 'application/json' }))?.reason).toBe('not-acceptable');
    expect(postHeadersRefusal(h({ accept: '*/*', 'content-type': 'text/plain' }))?.reason).toBe(
      'unsupported-media-type',
    );
    // A JSON-only POST (a wire profile's) asks nothing of Accept.
    expect(contentTypeRefusal(h({ ...json, accept: 'text/html' }))).toBeUndefined();
    expect(contentTypeRefusal(h({ 'content-type': 'text/plain' }))?.reason).toBe('unsupported-media-type');
    expect(streamAcceptRefusal(h({ accept: 'text/event-stream' }))).toBeUndefined();
    expect(streamAcceptRefusal(h({}))?.reason).toBe('stream-not-acceptable');
  });
});

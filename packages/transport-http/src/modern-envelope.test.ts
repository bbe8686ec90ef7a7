import type { JsonRpcRequest } from '@agentd/rpc-frame';
import { describe, expect, it } from 'vitest';
import type { HeaderReader } from './http-io.js';
import { checkModernEnvelope } from './modern-envelope.js';

/** Raw header values, as a host hands them over (lower-case names). */
const h = (record: Record<string, string>): HeaderReader => ({ get: (name) => record[name] ?? null });

const meta = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
};

function call(params: Record<string, unknown>, method = 'tools/call'): JsonRpcRequest {
  return { jsonrpc: '2.0', id: 1, method, params };
}

const headers = { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'echo' };

describe('checkModernEnvelope', () => {
  it('accepts matching headers, including a base64-encoded name', () => {
    expect(checkModernEnvelope(call({ _meta: meta, name: 'echo' }), h(headers))).toBeUndefined();
    const name = 'résumé';
    const encoded = `=?base64?${Buffer.from(name).toString('base64')}?=`;
    expect(
      checkModernEnvelope(call({ _meta: meta, name }), h({ ...headers, 'mcp-name': encoded })),
    ).toBeUndefined();
  });

  it('reports missing _meta fields as -32602 before any header check', () => {
    expect(checkModernEnvelope(call({ name: 'echo' }), h({}))?.code).toBe(-32602);
    const noVersion = { 'io.modelcontextprotocol/clientCapabilities': {} };
    expect(checkModernEnvelope(call({ _meta: noVersion, name: 'echo' }), h(headers))?.code).toBe(-32602);
    const noCaps = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' };
    expect(checkModernEnvelope(call({ _meta: noCaps, name: 'echo' }), h(headers))?.code).toBe(-32602);
    const badLevel = { ...meta, 'io.modelcontextprotocol/logLevel': 'loud' };
    expect(checkModernEnvelope(call({ _meta: badLevel, name: 'echo' }), h(headers))?.code).toBe(-32602);
  });

  it('reports a header/body version mismatch as -32020, not -32022', () => {
    const v999 = { ...meta, 'io.modelcontextprotocol/protocolVersion': 'v999.0.0' };
    const error = checkModernEnvelope(call({ _meta: v999, name: 'echo' }), h(headers));
    expect(error?.code).toBe(-32020);
    expect(error?.message).toContain('MCP-Protocol-Version');
  });

  it('requires Mcp-Method and Mcp-Name where the body has them', () => {
    const { 'mcp-method': _m, ...noMethod } = headers;
    expect(checkModernEnvelope(call({ _meta: meta, name: 'echo' }), h(noMethod))?.code).toBe(-32020);
    const { 'mcp-name': _n, ...noName } = headers;
    expect(checkModernEnvelope(call({ _meta: meta, name: 'echo' }), h(noName))?.code).toBe(-32020);
    expect(checkModernEnvelope(call({ _meta: meta, name: 'other' }), h(headers))?.message).toContain(
      "'echo'",
    );
    const list = call({ _meta: meta }, 'tools/list');
    expect(checkModernEnvelope(list, h({ ...noName, 'mcp-method': 'tools/list' }))).toBeUndefined();
    const read = call({ _meta: meta, uri: 'test://a' }, 'resources/read');
    expect(
      checkModernEnvelope(read, h({ ...headers, 'mcp-method': 'resources/read', 'mcp-name': 'test://a' })),
    ).toBeUndefined();
    expect(
      checkModernEnvelope(call({ _meta: meta, name: 'echo' }), h({ ...headers, 'mcp-name': ' echo' }))?.code,
    ).toBe(-32020);
  });
});

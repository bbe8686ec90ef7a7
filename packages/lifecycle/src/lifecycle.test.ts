/** Versions, the era classifier, modern _meta checks and lifecycleResponse, both eras. */
import { type JsonRpcRequest, LocalError, WireError } from '@agentd/rpc-frame';
import { describe, expect, it } from 'vitest';
import { classifyRequest, type ModernMeta } from './classify-request.js';
import { resolveLifecycle } from './lifecycle-options.js';
import { lifecycleResponse } from './lifecycle-response.js';
import { modernResult } from './modern-result.js';
import { requestEra } from './request-era.js';
import { eraOfVersion, LEGACY_VERSIONS, MODERN_VERSION, SUPPORTED_VERSIONS } from './versions.js';

const INFO = { name: 'srv', version: '9.9.9' };
const CAPS = { tools: {} };
const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': { sampling: {} },
};

function req(method: string, params?: Record<string, unknown>, id: string | number = 1): JsonRpcRequest {
  return params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params };
}

describe('versions and eras', () => {
  it('lists every version newest first and maps each to its era', () => {
    expect(SUPPORTED_VERSIONS).toEqual([
      '2026-07-28',
      '2025-11-25',
      '2025-06-18',
      '2025-03-26',
      '2024-11-05',
    ]);
    expect(eraOfVersion(MODERN_VERSION)).toBe('modern');
    for (const v of LEGACY_VERSIONS) expect(eraOfVersion(v)).toBe('legacy');
    expect(eraOfVersion('2026-01-01')).toBeUndefined();
    expect(eraOfVersion('')).toBeUndefined();
  });

  it('classifies by _meta, and modern-only methods as modern whatever they carry', () => {
    expect(requestEra(req('tools/list'))).toBe('legacy');
    expect(requestEra(req('tools/list', { _meta: { progressToken: 1 } }))).toBe('legacy');
    expect(requestEra(req('tools/list', { _meta: META }))).toBe('modern');
    expect(
      requestEra(req('tools/list', { _meta: { 'io.modelcontextprotocol/clientCapabilities': {} } })),
    ).toBe('modern');
    expect(requestEra(req('server/discover'))).toBe('modern');
    expect(requestEra(req('subscriptions/listen', {}))).toBe('modern');
    expect(requestEra({ params: 'nonsense' })).toBe('legacy');
  });

  it('serves bare requests as modern when no legacy version is enabled', () => {
    const modernOnly = { versions: ['2026-07-28'] };
    expect(classifyRequest(req('tools/list'), modernOnly)).toMatchObject({ reason: 'missing-meta' });
    expect(classifyRequest(req('tools/list'))).toEqual({ era: 'legacy' });
  });

  it('classifies legacy requests without allocating, and a modern one with its checked _meta', () => {
    expect(classifyRequest(req('tools/list'))).toBe(classifyRequest(req('prompts/list')));
    expect(classifyRequest(req('tools/list', { _meta: META }))).toEqual({
      era: 'modern',
      meta: { protocolVersion: '2026-07-28', clientCapabilities: { sampling: {} } },
    });
    // A transport may serve a request as modern whatever its _meta (a modern version header).
    expect(classifyRequest(req('tools/list'), undefined, true)).toMatchObject({ reason: 'missing-meta' });
  });

  it('validates options: unknown versions and bad ttl are LocalErrors, order is normalised', () => {
    expect(() => resolveLifecycle({ versions: ['2099-01-01'] })).toThrow(LocalError);
    expect(() => resolveLifecycle({ versions: [] })).toThrow(/at least one/);
    expect(() => resolveLifecycle({ ttlMs: -1 })).toThrow(/ttlMs/);
    expect(resolveLifecycle({ versions: ['2024-11-05', '2026-07-28'] }).supported).toEqual([
      '2026-07-28',
      '2024-11-05',
    ]);
  });
});

/** The modern `_meta` of a request, or its refusal thrown. */
function checkModernMeta(request: JsonRpcRequest, options?: { versions: string[] }): ModernMeta {
  const classified = classifyRequest(request, options, true);
  if (classified instanceof WireError) throw classified;
  return classified.meta;
}

describe('classifyRequest: modern _meta', () => {
  it('returns the client facts of a valid envelope', () => {
    const meta = checkModernMeta(
      req('tools/call', {
        _meta: {
          ...META,
          'io.modelcontextprotocol/clientInfo': { name: 'c', version: '1' },
          'io.modelcontextprotocol/logLevel': 'debug',
          progressToken: 'tok',
        },
      }),
    );
    expect(meta).toEqual({
      protocolVersion: '2026-07-28',
      clientCapabilities: { sampling: {} },
      clientInfo: { name: 'c', version: '1' },
      logLevel: 'debug',
      progressToken: 'tok',
    });
  });

  it.each([
    ['no params', undefined],
    ['no _meta', {}],
    ['_meta not an object', { _meta: [] }],
    ['no version', { _meta: { 'io.modelcontextprotocol/clientCapabilities': {} } }],
    ['version not a string', { _meta: { ...META, 'io.modelcontextprotocol/protocolVersion': 20260728 } }],
    ['no capabilities', { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' } }],
    [
      'capabilities not an object',
      { _meta: { ...META, 'io.modelcontextprotocol/clientCapabilities': 'all' } },
    ],
    ['bad clientInfo', { _meta: { ...META, 'io.modelcontextprotocol/clientInfo': 'me' } }],
    ['bad logLevel', { _meta: { ...META, 'io.modelcontextprotocol/logLevel': 'verbose' } }],
    [
      'logLevel "warn" (MCP says "warning")',
      { _meta: { ...META, 'io.modelcontextprotocol/logLevel': 'warn' } },
    ],
    ['bad progressToken', { _meta: { ...META, progressToken: 1.5 } }],
  ])('-32602 for %s', (_name, params) => {
    expect(() => checkModernMeta(req('tools/list', params))).toThrow(
      expect.objectContaining({ name: 'WireError', code: -32602 }),
    );
  });

  it('-32022 with supported/requested for unknown, legacy or disabled versions', () => {
    for (const requested of ['1900-01-01', '2025-11-25']) {
      const thrown = catchWire(() =>
        checkModernMeta(
          req('x', { _meta: { ...META, 'io.modelcontextprotocol/protocolVersion': requested } }),
        ),
      );
      expect(thrown.toJSON()).toEqual({
        code: -32022,
        message: 'Unsupported protocol version',
        data: { supported: SUPPORTED_VERSIONS, requested },
      });
    }
    const legacyOnly = catchWire(() =>
      checkModernMeta(req('x', { _meta: META }), { versions: ['2025-06-18'] }),
    );
    expect(legacyOnly.data).toEqual({ supported: ['2025-06-18'], requested: '2026-07-28' });
  });
});

function catchWire(fn: () => unknown): WireError {
  try {
    fn();
  } catch (thrown) {
    if (thrown instanceof WireError) return thrown;
  }
  throw new Error('expected a WireError');
}

describe('lifecycleResponse', () => {
  it('legacy initialize: echo, counter-offer, instructions, malformed params', () => {
    const echo = lifecycleResponse(
      req('initialize', { protocolVersion: '2024-11-05', capabilities: {} }),
      INFO,
      CAPS,
      {
        instructions: 'hi',
      },
    );
    expect(echo).toEqual({
      jsonrpc: '2.0',
      id: 1,
      result: { protocolVersion: '2024-11-05', capabilities: CAPS, serverInfo: INFO, instructions: 'hi' },
    });
    for (const offered of ['2026-07-28', 'garbage']) {
      const counter = lifecycleResponse(req('initialize', { protocolVersion: offered }), INFO, CAPS);
      expect(counter).toMatchObject({ result: { protocolVersion: '2025-11-25' } });
    }
    const limited = lifecycleResponse(req('initialize', { protocolVersion: '2025-11-25' }), INFO, CAPS, {
      versions: ['2026-07-28', '2025-06-18'],
    });
    expect(limited).toMatchObject({ result: { protocolVersion: '2025-06-18' } });
    expect(lifecycleResponse(req('initialize', {}), INFO, CAPS)).toMatchObject({ error: { code: -32602 } });
    expect(
      lifecycleResponse(req('initialize', { protocolVersion: '2025-06-18', capabilities: 1 }), INFO, CAPS),
    ).toMatchObject({
      error: { code: -32602 },
    });
  });

  it('legacy ping answers {}; domain methods fall through', () => {
    expect(lifecycleResponse(req('ping', undefined, 'p'), INFO, CAPS)).toEqual({
      jsonrpc: '2.0',
      id: 'p',
      result: {},
    });
    expect(lifecycleResponse(req('tools/list'), INFO, CAPS)).toBeUndefined();
    expect(lifecycleResponse(req('tools/list', { _meta: META }), INFO, CAPS)).toBeUndefined();
  });

  it('server/discover: the full modern shape, serverInfo only in _meta', () => {
    const response = lifecycleResponse(req('server/discover', { _meta: META }), INFO, CAPS, {
      ttlMs: 0,
      cacheScope: 'private',
    });
    expect(response).toEqual({
      jsonrpc: '2.0',
      id: 1,
      result: {
        resultType: 'complete',
        supportedVersions: SUPPORTED_VERSIONS,
        capabilities: CAPS,
        ttlMs: 0,
        cacheScope: 'private',
        _meta: { 'io.modelcontextprotocol/serverInfo': INFO },
      },
    });
  });

  it('modern errors: bad _meta, removed methods, modern-only initialize', () => {
    expect(lifecycleResponse(req('server/discover', {}), INFO, CAPS)).toMatchObject({
      error: { code: -32602 },
    });
    expect(
      lifecycleResponse(
        req('tools/list', { _meta: { 'io.modelcontextprotocol/clientCapabilities': {} } }),
        INFO,
        CAPS,
      ),
    ).toMatchObject({ error: { code: -32602 } });
    for (const method of [
      'initialize',
      'ping',
      'logging/setLevel',
      'resources/subscribe',
      'resources/unsubscribe',
    ]) {
      expect(lifecycleResponse(req(method, { _meta: META }), INFO, CAPS), method).toMatchObject({
        error: { code: -32601 },
      });
    }
    const modernOnly = lifecycleResponse(req('initialize', { protocolVersion: '2025-11-25' }), INFO, CAPS, {
      versions: ['2026-07-28'],
    });
    expect(modernOnly).toMatchObject({ error: { code: -32601, data: { supported: ['2026-07-28'] } } });
    expect(JSON.stringify(modernOnly)).toContain('2026-07-28');
  });
});

describe('modernResult', () => {
  it('adds resultType and serverInfo, keeps what is there', () => {
    expect(modernResult({ tools: [] }, INFO)).toEqual({
      tools: [],
      resultType: 'complete',
      _meta: { 'io.modelcontextprotocol/serverInfo': INFO },
    });
    expect(modernResult({ resultType: 'input_required', _meta: { k: 1 } }, INFO)).toEqual({
      resultType: 'input_required',
      _meta: { k: 1, 'io.modelcontextprotocol/serverInfo': INFO },
    });
  });

  it('replaces a resultType that is not a string and a serverInfo the result set itself', () => {
    const result = { resultType: 7, _meta: { 'io.modelcontextprotocol/serverInfo': 'theirs', k: 2 } };
    expect(modernResult(result, INFO)).toEqual({
      resultType: 'complete',
      _meta: { k: 2, 'io.modelcontextprotocol/serverInfo': INFO },
    });
    expect(modernResult({ _meta: 'not an object' }, INFO)._meta).toEqual({
      'io.modelcontextprotocol/serverInfo': INFO,
    });
    // The result itself is left as it was.
    expect(result).toEqual({
      resultType: 7,
      _meta: { 'io.modelcontextprotocol/serverInfo': 'theirs', k: 2 },
    });
  });
});

import { describe, expect, it } from 'vitest';
import type { HeaderReader } from './http-post-route.js';
import { checkParamHeaders, paramHeadersOf } from './param-headers.js';

/** Raw header values, as a host hands them over (lower-case names). */
const h = (record: Record<string, string>): HeaderReader => ({ get: (name) => record[name] ?? null });

const schema = {
  type: 'object',
  properties: {
    region: { type: 'string', 'x-mcp-header': 'Region' },
    priority: { type: 'integer', 'x-mcp-header': 'Priority' },
    verbose: { type: 'boolean', 'x-mcp-header': 'Verbose' },
    ratio: { type: 'number', 'x-mcp-header': 'Ratio' },
    bad: { type: 'string', 'x-mcp-header': 'Bad Name' },
    nested: { type: 'object', properties: { zone: { type: 'string', 'x-mcp-header': 'Zone' } } },
  },
};

describe('Mcp-Param headers', () => {
  const headers = paramHeadersOf(schema);

  it('finds annotated primitive properties through properties chains, skipping invalid ones', () => {
    expect(headers.map((h) => [h.name, h.path.join('.'), h.type])).toEqual([
      ['Region', 'region', 'string'],
      ['Priority', 'priority', 'integer'],
      ['Verbose', 'verbose', 'boolean'],
      ['Zone', 'nested.zone', 'string'],
    ]);
  });

  it('accepts matching headers (base64 decoded, integers numerically)', () => {
    const args = { region: 'us-west1', priority: 3, verbose: false, nested: { zone: 'zürich' } };
    const zone = `=?base64?${Buffer.from('zürich').toString('base64')}?=`;
    const ok = checkParamHeaders(
      headers,
      args,
      h({
        'mcp-param-region': 'us-west1',
        'mcp-param-priority': '3.0',
        'mcp-param-verbose': 'false',
        'mcp-param-zone': zone,
      }),
    );
    expect(ok).toBeUndefined();
    expect(checkParamHeaders(headers, {}, h({}))).toBeUndefined();
  });

  it('rejects a missing, unequal, badly encoded or unexpected header with -32020', () => {
    expect(checkParamHeaders(headers, { region: 'a' }, h({}))?.code).toBe(-32020);
    expect(checkParamHeaders(headers, { region: 'a' }, h({ 'mcp-param-region': 'b' }))?.code).toBe(-32020);
    expect(
      checkParamHeaders(headers, { region: 'Hello' }, h({ 'mcp-param-region': '=?base64?SGVsbG8?=' }))?.code,
    ).toBe(-32020);
    expect(
      checkParamHeaders(headers, { region: 'Hello' }, h({ 'mcp-param-region': '=?base64?SGVs!!!bG8=?=' }))
        ?.code,
    ).toBe(-32020);
    expect(checkParamHeaders(headers, {}, h({ 'mcp-param-region': 'x' }))?.code).toBe(-32020);
    expect(checkParamHeaders(headers, { priority: 3 }, h({ 'mcp-param-priority': 'three' }))?.code).toBe(
      -32020,
    );
    // A literal value that merely looks like base64 is compared as is.
    expect(
      checkParamHeaders(headers, { region: 'SGVsbG8=' }, h({ 'mcp-param-region': 'SGVsbG8=' })),
    ).toBeUndefined();
  });
});

/** Runs the request → expected response fixtures of test/fixtures/<revision>/ against an everything-style catalogue. */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Era, MetaKey, modernResult } from '@agentd/lifecycle';
import {
  errorResponse,
  type JsonObject,
  type JsonRpcRequest,
  successResponse,
  toWireError,
} from '@agentd/rpc-frame';
import { describe, expect, it } from 'vitest';
import { isJsonObject } from './json.js';
import { everythingDispatcher } from './test-support/everything.js';
import { makeContext } from './test-support/request-context.js';

interface Fixture {
  description: string;
  context?: { capabilities?: JsonObject; progressToken?: string | number };
  request: JsonRpcRequest;
  response: JsonObject;
  notifications?: JsonObject[];
}

const root = fileURLToPath(new URL('../test/fixtures', import.meta.url));
const SERVER_INFO = { name: 'fixtures', version: '1.0.0' };

/**
 * The result as the server core sends it: the modern envelope (`resultType`) is the core's to add.
 * The fixtures leave out the server info in `_meta`, the same on every answer.
 */
function onTheWire(result: JsonObject, era: Era): JsonObject {
  if (era !== 'modern') return result;
  const wire = modernResult(result, SERVER_INFO);
  const { [MetaKey.serverInfo]: _serverInfo, ...meta } = wire._meta as JsonObject;
  if (Object.keys(meta).length > 0) return { ...wire, _meta: meta };
  const { _meta, ...rest } = wire;
  return rest;
}

/** `"$string"` in an expected value matches any string (e.g. a sealed requestState). */
function expectMatches(actual: unknown, expected: unknown, path = '$'): void {
  if (expected === '$string') {
    expect(typeof actual, path).toBe('string');
    return;
  }
  if (Array.isArray(expected)) {
    expect(Array.isArray(actual), path).toBe(true);
    expect((actual as unknown[]).length, `${path}.length`).toBe(expected.length);
    for (const [index, item] of expected.entries())
      expectMatches((actual as unknown[])[index], item, `${path}[${index}]`);
    return;
  }
  if (isJsonObject(expected)) {
    expect(isJsonObject(actual), path).toBe(true);
    expect(Object.keys(actual as JsonObject).sort(), `${path} keys`).toEqual(Object.keys(expected).sort());
    for (const key of Object.keys(expected))
      expectMatches((actual as JsonObject)[key], expected[key], `${path}.${key}`);
    return;
  }
  expect(actual, path).toEqual(expected);
}

for (const revision of readdirSync(root).sort()) {
  const era = revision >= '2026-07-28' ? 'modern' : 'legacy';
  describe(`wire fixtures ${revision}`, () => {
    const dispatcher = everythingDispatcher();
    for (const file of readdirSync(join(root, revision))
      .filter((f) => f.endsWith('.json'))
      .sort()) {
      const fixture = JSON.parse(readFileSync(join(root, revision, file), 'utf8')) as Fixture;
      it(`${file}: ${fixture.description}`, async () => {
        const meta = isJsonObject(fixture.request.params?._meta) ? fixture.request.params._meta : {};
        const declared = meta['io.modelcontextprotocol/clientCapabilities'];
        const progressToken = meta.progressToken;
        const context = makeContext({
          era,
          requestId: fixture.request.id,
          capabilities:
            era === 'modern' && isJsonObject(declared) ? declared : (fixture.context?.capabilities ?? {}),
          ...(typeof progressToken === 'string' || typeof progressToken === 'number'
            ? { progressToken }
            : {}),
        });
        const response = await dispatcher.handle(fixture.request, context).then(
          (result) => successResponse(fixture.request.id, onTheWire(result, era)),
          (error: unknown) => errorResponse(fixture.request.id, toWireError(error).toJSON()),
        );
        expectMatches(JSON.parse(JSON.stringify(response)), fixture.response);
        expect(context.notifications).toEqual(fixture.notifications ?? []);
      });
    }
  });
}

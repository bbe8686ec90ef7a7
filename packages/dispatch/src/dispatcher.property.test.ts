/** Property tests: random requests never crash the dispatcher or ContractServer and always give valid JSON-RPC responses. */
import { classify, errorResponse, type JsonObject, successResponse, WireError } from '@agentd/rpc-frame';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ContractServer } from './contract-server.js';
import { everythingDispatcher } from './test-support/everything.js';
import { makeContext } from './test-support/request-context.js';

const METHODS = [
  'tools/list',
  'tools/call',
  'resources/list',
  'resources/templates/list',
  'resources/read',
  'prompts/list',
  'prompts/get',
  'completion/complete',
];
const NAMES = [
  'add',
  'test_simple_text',
  'test_input_required_result_elicitation',
  'query_servers',
  'test_simple_prompt',
  'nope',
];
const URIS = ['test://static-text', 'test://template/1/data', 'mcp://schema/query/servers', 'x://y'];

const json = fc.jsonValue({ maxDepth: 3 });
const params: fc.Arbitrary<JsonObject> = fc.record(
  {
    name: fc.oneof(fc.constantFrom(...NAMES), json),
    uri: fc.oneof(fc.constantFrom(...URIS), json),
    arguments: fc.oneof(fc.dictionary(fc.string(), json), json),
    cursor: fc.oneof(fc.string(), json),
    ref: fc.oneof(
      fc.record({
        type: fc.constantFrom('ref/prompt', 'ref/resource'),
        name: fc.constantFrom(...NAMES),
        uri: fc.constantFrom(...URIS),
      }),
      json,
    ),
    argument: fc.oneof(fc.record({ name: fc.string(), value: fc.string() }), json),
    inputResponses: fc.oneof(fc.dictionary(fc.string(), json), json),
    requestState: fc.oneof(fc.string(), json),
    _meta: fc.oneof(fc.record({ progressToken: fc.oneof(fc.string(), fc.integer()) }), json),
  },
  { requiredKeys: [] },
);

describe('property: random requests', () => {
  const dispatcher = everythingDispatcher();

  it('never crash the dispatcher and always give a valid JSON-RPC response', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(fc.constantFrom(...METHODS), fc.string()),
        params,
        fc.constantFrom('legacy', 'modern'),
        fc.oneof(fc.integer(), fc.string()),
        fc.constantFrom({}, { elicitation: {}, sampling: {}, roots: {} }),
        async (method, p, era, id, capabilities) => {
          const context = makeContext({ era: era as 'legacy' | 'modern', requestId: id, capabilities });
          let response: unknown;
          try {
            response = successResponse(
              id,
              await dispatcher.handle({ jsonrpc: '2.0', id, method, params: p }, context),
            );
          } catch (error) {
            expect(error).toBeInstanceOf(WireError);
            const wire = error as WireError;
            expect(Number.isInteger(wire.code)).toBe(true);
            expect(wire.code).not.toBe(-32603);
            response = errorResponse(id, wire.toJSON());
          }
          const roundTrip = JSON.parse(JSON.stringify(response)) as unknown;
          const classified = classify(roundTrip);
          expect(classified.kind).toBe('response');
          expect((roundTrip as { id: unknown }).id).toBe(id);
        },
      ),
      { numRuns: 400 },
    );
  });

  it('ContractServer.handleRequest always resolves to a JSON-RPC response object', async () => {
    const server = new ContractServer();
    server.registerTool(
      'echo',
      'Echo',
      { type: 'object', properties: { x: { type: 'string' } }, required: ['x'] },
      (a) => a.x,
    );
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.anything(),
          fc.record(
            {
              jsonrpc: fc.oneof(fc.constant('2.0'), json),
              id: fc.oneof(fc.integer(), fc.string(), json),
              method: fc.oneof(fc.constantFrom('tools/list', 'tools/call', 'initialize'), json),
              params: fc.oneof(params, fc.record({ name: fc.constant('echo'), arguments: json }), json),
              _meta: json,
            },
            { requiredKeys: [] },
          ),
        ),
        async (request) => {
          const response = await server.handleRequest(request);
          const roundTrip = JSON.parse(JSON.stringify(response)) as JsonObject;
          expect(roundTrip.jsonrpc).toBe('2.0');
          expect('result' in roundTrip !== 'error' in roundTrip).toBe(true);
          if ('error' in roundTrip) expect(Number.isInteger((roundTrip.error as JsonObject).code)).toBe(true);
        },
      ),
      { numRuns: 400 },
    );
  });
});

/** fast-check arbitraries for JSON-RPC messages, shared by the property tests. */
import fc from 'fast-check';
import type { JsonObject, JsonRpcMessage } from '../messages.js';

const text = fc.string({ unit: 'binary', maxLength: 24 });

const requestId = fc.oneof(
  text,
  fc.integer({ min: Number.MIN_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER }),
);

/** JSON has no -0 (it is written as 0), so values that must survive a round trip carry +0. */
function positiveZero(value: unknown): unknown {
  if (Object.is(value, -0)) return 0;
  if (Array.isArray(value)) return value.map(positiveZero);
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, positiveZero(v)]));
  }
  return value;
}

const jsonValue = (maxDepth: number) => fc.jsonValue({ maxDepth, stringUnit: 'binary' }).map(positiveZero);

const jsonObject: fc.Arbitrary<JsonObject> = fc.dictionary(text, jsonValue(3), { maxKeys: 5 });

const method = fc.string({ unit: 'binary', minLength: 1, maxLength: 24 });

export const message: fc.Arbitrary<JsonRpcMessage> = fc.oneof(
  fc
    .record({ id: requestId, method, params: jsonObject }, { requiredKeys: ['id', 'method'] })
    .map((m) => ({ jsonrpc: '2.0' as const, ...m })),
  fc
    .record({ method, params: jsonObject }, { requiredKeys: ['method'] })
    .map((m) => ({ jsonrpc: '2.0' as const, ...m })),
  fc.record({ id: requestId, result: jsonObject }).map((m) => ({ jsonrpc: '2.0' as const, ...m })),
  fc
    .record({
      id: fc.oneof(requestId, fc.constant(null)),
      error: fc.record(
        { code: fc.integer({ min: -32768, max: 32767 }), message: text, data: jsonValue(2) },
        { requiredKeys: ['code', 'message'] },
      ),
    })
    .map((m) => ({ jsonrpc: '2.0' as const, ...m })),
);

/** Cut points splitting `length` bytes into chunks (sorted, deduplicated, inside the range). */
export function cutPoints(length: number): fc.Arbitrary<number[]> {
  return fc
    .array(fc.integer({ min: 0, max: length }), { maxLength: 40 })
    .map((cuts) => [...new Set(cuts)].sort((a, b) => a - b));
}

export function split(bytes: Uint8Array, cuts: readonly number[]): Uint8Array[] {
  const chunks: Uint8Array[] = [];
  let from = 0;
  for (const cut of cuts) {
    chunks.push(bytes.subarray(from, cut));
    from = cut;
  }
  chunks.push(bytes.subarray(from));
  return chunks;
}

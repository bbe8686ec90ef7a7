/** The envelope every modern result carries: `resultType` and serverInfo in `_meta`. */
import { isJsonObject, type JsonObject, type RequestId } from '@agentd/rpc-frame';
import { MetaKey } from './meta-keys.js';
import type { Implementation } from './protocol-types.js';

/**
 * Returns the result with `resultType: "complete"` when absent and
 * `_meta["io.modelcontextprotocol/serverInfo"]` added (existing `_meta` keys are kept).
 */
export function modernResult(result: JsonObject, serverInfo: Implementation): JsonObject {
  const meta = isJsonObject(result._meta) ? result._meta : {};
  return {
    ...result,
    resultType: typeof result.resultType === 'string' ? result.resultType : 'complete',
    _meta: { ...meta, [MetaKey.serverInfo]: serverInfo },
  };
}

/**
 * The result that ends a `subscriptions/listen` stream gracefully (before `modernResult` adds the
 * envelope): the stream's id under `_meta["io.modelcontextprotocol/subscriptionId"]`.
 */
export function listenFinalResult(subscriptionId: RequestId): JsonObject {
  return { resultType: 'complete', _meta: { [MetaKey.subscriptionId]: subscriptionId } };
}

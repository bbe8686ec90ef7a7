/** The envelope every modern result carries: `resultType` and serverInfo in `_meta`. */
import { isJsonObject, type JsonObject, type RequestId } from '@agentd/rpc-frame';
import { MetaKey } from './meta-keys.js';
import type { Implementation } from './protocol-types.js';

/**
 * Returns the result with `resultType: "complete"` when absent and
 * `_meta["io.modelcontextprotocol/serverInfo"]` added (existing `_meta` keys are kept).
 */
export function modernResult(result: JsonObject, serverInfo: Implementation): JsonObject {
  const meta = result._meta;
  return {
    ...result,
    resultType: typeof result.resultType === 'string' ? result.resultType : 'complete',
    _meta: isJsonObject(meta) ? { ...meta, [MetaKey.serverInfo]: serverInfo } : serverInfoMeta(serverInfo),
  };
}

// Most results carry no `_meta` of their own: theirs is the same frozen object for every answer.
const serverInfoMetas = new WeakMap<Implementation, JsonObject>();

function serverInfoMeta(serverInfo: Implementation): JsonObject {
  let meta = serverInfoMetas.get(serverInfo);
  if (meta === undefined) {
    meta = Object.freeze({ [MetaKey.serverInfo]: serverInfo });
    serverInfoMetas.set(serverInfo, meta);
  }
  return meta;
}

/**
 * The result that ends a `subscriptions/listen` stream gracefully (before `modernResult` adds the
 * envelope): the stream's id under `_meta["io.modelcontextprotocol/subscriptionId"]`.
 */
export function listenFinalResult(subscriptionId: RequestId): JsonObject {
  return { resultType: 'complete', _meta: { [MetaKey.subscriptionId]: subscriptionId } };
}

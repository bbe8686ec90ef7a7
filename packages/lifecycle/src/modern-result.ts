/** The envelope every modern result carries: `resultType` and serverInfo in `_meta`. */
import { isJsonObject, type JsonObject, type RequestId } from '@agentd/rpc-frame';
import { MetaKey } from './meta-keys.js';
import type { Implementation } from './protocol-types.js';

/**
 * Returns the result with `resultType: "complete"` when absent and
 * `_meta["io.modelcontextprotocol/serverInfo"]` added (existing `_meta` keys are kept).
 */
export function modernResult(result: JsonObject, serverInfo: Implementation): JsonObject {
  // The envelope's keys come first and the result's are spread over them. (Adding a key to a
  // spread copy instead gives every answer a hidden class of its own: V8 then allocates one per
  // answer in old space, and the collector's work doubles the cost of a call.)
  const out: JsonObject = { resultType: 'complete', _meta: serverInfoMeta(serverInfo), ...result };
  if (typeof out.resultType !== 'string') out.resultType = 'complete';
  const meta = result._meta;
  if (meta !== undefined)
    out._meta = isJsonObject(meta) ? withServerInfo(meta, serverInfo) : serverInfoMeta(serverInfo);
  return out;
}

/** The result's own `_meta` with the server info added (it wins over a key of the same name). */
function withServerInfo(meta: JsonObject, serverInfo: Implementation): JsonObject {
  const merged: JsonObject = { [MetaKey.serverInfo]: serverInfo, ...meta };
  merged[MetaKey.serverInfo] = serverInfo;
  return merged;
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

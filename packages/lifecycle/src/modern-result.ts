/** The envelope every modern result carries: `resultType` and serverInfo in `_meta`. */
import { isJsonObject, type JsonObject } from '@agentd/rpc-frame';
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

/** Map keys for JSON-RPC request ids: 1 and "1" are different requests. */
import type { RequestId } from '@agentd/rpc-frame';

export function idKey(id: RequestId): string {
  return `${typeof id}:${id}`;
}

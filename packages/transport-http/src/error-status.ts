/** HTTP status of a JSON-RPC answer, per era (spec 2026-07-28 transports, legacy conventions). */
import { ErrorCode, type JsonRpcResponse } from '@agentd/rpc-frame';

const MODERN_STATUS: Readonly<Record<number, number>> = {
  [ErrorCode.MethodNotFound]: 404,
  [ErrorCode.HeaderMismatch]: 400,
  [ErrorCode.MissingRequiredClientCapability]: 400,
  [ErrorCode.UnsupportedProtocolVersion]: 400,
  [ErrorCode.InvalidRequest]: 400,
  [ErrorCode.ParseError]: 400,
};

/**
 * Modern: -32601 is 404, envelope errors are 400, other JSON-RPC errors (unknown tool, resource
 * not found, tool failures) stay 200 like the legacy era, where only malformed messages are 400.
 */
export function statusOf(response: JsonRpcResponse, modern: boolean): number {
  if (!('error' in response)) return 200;
  const code = response.error.code;
  if (modern) return MODERN_STATUS[code] ?? 200;
  return code === ErrorCode.InvalidRequest || code === ErrorCode.ParseError ? 400 : 200;
}

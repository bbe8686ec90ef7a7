/**
 * Dispatch's wire refusal that lifecycle's catalogue (`refuse.*`) does not have yet, named as the
 * catalogue would name it, so every "method not found" of dispatch reads the same. When
 * lifecycle gains `refuse.methodNotFound`, this file goes and its callers point there.
 */
import { ErrorCode, WireError } from '@agentd/rpc-frame';

export function methodNotFound(method: string): WireError {
  return new WireError(ErrorCode.MethodNotFound, `Method not found: ${String(method).slice(0, 128)}`);
}

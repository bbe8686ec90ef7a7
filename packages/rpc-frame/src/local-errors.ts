/** The local (never on the wire) error codes of @agentd/rpc-frame. */
import { LocalError } from './wire-error.js';

/** An argument a caller passed (an option, an SSE field, a wire error code) is not usable. */
export type RpcFrameErrorCode = 'invalid_argument';

export function invalidArgument(message: string): LocalError<RpcFrameErrorCode> {
  return new LocalError<RpcFrameErrorCode>('invalid_argument', message);
}

/** The local (never on the wire) error codes of @agentd/rpc-frame. */
import { LocalError } from './wire-error.js';

/**
 * `invalid_argument`: an argument a caller passed (an option, an SSE field, a wire error code) is
 * not usable. `frame_too_large`: a peer sent a message larger than the reader accepts. `aborted`:
 * the caller's signal ended a request before its answer came. `closed`: the connection ended
 * before the request was answered.
 */
export type RpcFrameErrorCode = 'invalid_argument' | 'frame_too_large' | 'aborted' | 'closed';

export function invalidArgument(message: string): LocalError<RpcFrameErrorCode> {
  return new LocalError<RpcFrameErrorCode>('invalid_argument', message);
}

/**
 * What a client rejects its pending requests with when an answer is larger than it accepts. An
 * oversized line cannot be parsed, so its id is unknown: a client rejects every request pending on
 * that connection with this, and closes it (the stream cannot be resynchronised).
 */
export function frameTooLarge(limit: number, what = 'response'): LocalError<RpcFrameErrorCode> {
  return new LocalError<RpcFrameErrorCode>('frame_too_large', `${what} too large (limit ${limit} bytes)`);
}

/** What an `RpcPeer` request settles with when its signal aborts it (before or after it was sent). */
export function aborted(message: string): LocalError<RpcFrameErrorCode> {
  return new LocalError<RpcFrameErrorCode>('aborted', message);
}

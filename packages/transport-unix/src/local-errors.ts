/** The unix transport's local error catalogue: every code a LocalError thrown here carries. */
import { LocalError } from '@agentd/rpc-frame';

/**
 * - `address_in_use`: another server is listening on the path (or bound it while we were binding).
 * - `not_a_socket`: the path exists and is not a socket; it is never replaced.
 * - `bind_failed`: the path could not be inspected, secured, cleared of a stale socket, or listened on.
 * - `connect_failed`: a dial failed (nothing listening, no such path, permission denied, …).
 */
export type UnixErrorCode = 'address_in_use' | 'not_a_socket' | 'bind_failed' | 'connect_failed';

export function unixError(
  code: UnixErrorCode,
  message: string,
  options?: { cause?: unknown },
): LocalError<UnixErrorCode> {
  return new LocalError<UnixErrorCode>(code, message, options);
}

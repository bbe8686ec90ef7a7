/** The vsock transport's local error catalogue: every code a LocalError thrown here carries. */
import { LocalError } from '@agentd/rpc-frame';

/**
 * - `vsock_unavailable`: the addon cannot load or the kernel has no AF_VSOCK (the message says why).
 * - `invalid_vsock_address`: a cid or port out of range, or an unparsable `cid:port` text.
 * - `invalid_options`: another option is out of range (the listen backlog).
 */
export type VsockErrorCode = 'vsock_unavailable' | 'invalid_vsock_address' | 'invalid_options';

export function vsockError(
  code: VsockErrorCode,
  message: string,
  options?: { cause?: unknown },
): LocalError<VsockErrorCode> {
  return new LocalError<VsockErrorCode>(code, message, options);
}

/** Turns "this kernel has no AF_VSOCK" errno errors into an error that says so. */
import { vsockError } from './local-errors.js';

/** Runs `open`; EAFNOSUPPORT becomes LocalError `vsock_unavailable` naming the reason. */
export function explainNoVsock<T>(open: () => T): T {
  try {
    return open();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EAFNOSUPPORT') throw error;
    throw vsockError(
      'vsock_unavailable',
      'AF_VSOCK is not supported by this kernel (socket: EAFNOSUPPORT); a guest needs a vsock transport such as vmw_vsock_virtio_transport',
      { cause: error },
    );
  }
}

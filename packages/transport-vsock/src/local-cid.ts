/** This machine's own vsock CID. */
import { vsockError } from './local-errors.js';
import { nativeAddon } from './native.js';

/**
 * The local CID from the IOCTL_VM_SOCKETS_GET_LOCAL_CID ioctl on /dev/vsock (a guest's own CID;
 * 2 on a host). Throws LocalError `vsock_unavailable` when /dev/vsock is missing or unusable.
 */
export function localCid(): number {
  const addon = nativeAddon();
  try {
    return addon.localCid();
  } catch (error) {
    throw vsockError('vsock_unavailable', `cannot read the local vsock CID: ${(error as Error).message}`, {
      cause: error,
    });
  }
}

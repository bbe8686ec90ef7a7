/** Dials a vsock listener and returns the connection at once, like net.connect. */

import { explainNoVsock } from './explain-no-vsock.js';
import { type NativeAddress, nativeAddon } from './native.js';
import { checkU32 } from './parse-vsock-address.js';
import { VsockSocket, type VsockSocketOptions } from './vsock-socket.js';

/** @internal Dials any address family the addon supports (tests use unix). */
export function connectTo(address: NativeAddress, options: VsockSocketOptions = {}): VsockSocket {
  const [handle, failure] = nativeAddon().connect(address);
  const peer = address.family === 'vsock' ? { cid: address.cid, port: address.port } : {};
  const socket = new VsockSocket(handle, peer, true, options);
  // Like net.connect: a failed connect is an 'error' event after the caller attached listeners.
  if (failure !== undefined) process.nextTick(() => socket.destroy(failure));
  else socket.startConnecting(); // writable readiness ends the connect, even one that completed at once
  return socket;
}

/**
 * Connects to `cid:port` without blocking. The socket emits `connect` once connected; writes and
 * `end()` made before that are queued. A refused, reset or timed-out connect (the kernel's vsock
 * connect timeout is 2 s by default) is emitted as `error` with the errno code (ECONNRESET,
 * ETIMEDOUT, ENODEV for an unreachable CID, ...). Bad arguments throw LocalError
 * `invalid_vsock_address`; a missing addon throws `vsock_unavailable`.
 */
export function connectVsock(cid: number, port: number, options: VsockSocketOptions = {}): VsockSocket {
  const address: NativeAddress = {
    family: 'vsock',
    cid: checkU32('cid', cid, 0, 0xffff_fffe),
    port: checkU32('port', port, 1, 0xffff_fffe),
  };
  return explainNoVsock(() => connectTo(address, options));
}

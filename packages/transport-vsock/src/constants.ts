/** Well-known vsock addresses (linux/vm_sockets.h). */

/** Bind to any local CID: the listener accepts the host and, with loopback, the guest itself. */
export const VMADDR_CID_ANY = 0xffff_ffff;
/** The local loopback CID (needs the vsock_loopback transport). */
export const VMADDR_CID_LOCAL = 1;
/** The host, seen from a guest. */
export const VMADDR_CID_HOST = 2;
/** Bind to any free port; read the chosen one from `listener.address()`. */
export const VMADDR_PORT_ANY = 0xffff_ffff;

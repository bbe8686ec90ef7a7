/** Public API of @agentd/transport-vsock: AF_VSOCK listener and dialer for MCP servers. */
export { connectVsock } from './connect-vsock.js';
export { VMADDR_CID_ANY, VMADDR_CID_HOST, VMADDR_CID_LOCAL, VMADDR_PORT_ANY } from './constants.js';
export { localCid } from './local-cid.js';
export type { VsockErrorCode } from './local-errors.js';
export { type VsockAddonInfo, vsockAddonInfo, vsockUnavailableReason } from './native.js';
export { parseVsockAddress, type VsockAddress } from './parse-vsock-address.js';
export { type ServeVsockOptions, serveVsock, type VsockServer } from './serve-vsock.js';
export { type BindVsockOptions, bindVsock, VsockListener } from './vsock-listener.js';
export { VsockSocket, type VsockSocketOptions } from './vsock-socket.js';

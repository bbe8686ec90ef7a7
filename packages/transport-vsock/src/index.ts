/** Public API of @agentd/transport-vsock: AF_VSOCK listener and dialer for MCP servers. */
export { /** @public */ connectVsock } from './connect-vsock.js';
export { VMADDR_CID_ANY } from './constants.js';
export { /** @public */ localCid } from './local-cid.js';
export { vsockAddonInfo, vsockUnavailableReason } from './native.js';
export { parseVsockAddress } from './parse-vsock-address.js';
export { serveVsock, /** @public */ type VsockServer } from './serve-vsock.js';
export { bindVsock, /** @public */ VsockListener } from './vsock-listener.js';

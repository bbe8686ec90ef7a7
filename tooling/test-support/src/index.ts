/**
 * @agentd/test-support (private, tests only): the one NDJSON JSON-RPC client every package's tests
 * use, the shared test Handlers, a recording Logger, a unix-socket harness for a ServerCore, an
 * official SDK Transport over a socket or pipes, packed installs of workspace packages, a local OAuth
 * authorization server, and headless Chromium with an MCP Apps AppBridge host page.
 * Consumed as TypeScript sources by vitest and tsc; never built or published.
 */
export { type AuthorizationServer, startAuthorizationServer } from './authorization-server.js';
export {
  type Browser,
  browserTests,
  CHROMIUM_MISSING_IN_CI,
  type HostPage,
  hostView,
  launchChromium,
  scriptPage,
  serveHostPage,
} from './chromium-host.js';
export { LOCALHOST_TLS } from './localhost-tls.js';
export { memoryLogger } from './memory-logger.js';
export { MODERN_META, modernMeta } from './modern-meta.js';
export { type Json, type Message, NdjsonClient } from './ndjson-client.js';
export {
  installManifest,
  NPM_INSTALL,
  packWorkspace,
  runChecked,
  runCommand,
  scrubbedEnv,
} from './packed-install.js';
export { type ReplicaFleet, startReplicaFleet } from './replica-fleet.js';
export { resourceValue, toolValue } from './result-values.js';
export { streamTransport } from './sdk-stream-transport.js';
export { type SocketHarness, socketHarness } from './socket-harness.js';
export {
  FULL_CAPABILITIES,
  type TestHandlerOptions,
  testHandler,
} from './test-handler.js';
export { type ToolHandlerOptions, toolHandler, WATCHED_URI } from './tool-handler.js';

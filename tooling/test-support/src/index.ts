/**
 * @agentd/test-support (private, tests only): the one NDJSON JSON-RPC client every package's tests
 * use, the shared test Handlers, a recording Logger, and a unix-socket harness for a ServerCore.
 * Consumed as TypeScript sources by vitest and tsc; never built or published.
 */
export { memoryLogger } from './memory-logger.js';
export { MODERN_META, modernMeta } from './modern-meta.js';
export { type Json, type Message, NdjsonClient } from './ndjson-client.js';
export { resourceValue, toolValue } from './result-values.js';
export { type SocketHarness, socketHarness } from './socket-harness.js';
export {
  FULL_CAPABILITIES,
  type TestHandlerOptions,
  testHandler,
} from './test-handler.js';
export { type ToolHandlerOptions, toolHandler, WATCHED_URI } from './tool-handler.js';

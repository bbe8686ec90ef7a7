/**
 * @agentd/rpc-frame: JSON-RPC 2.0 messages, NDJSON framing and SSE encoding.
 * This file is the package's public API; everything not listed here is internal.
 */
export { type Classified, classify, isJsonObject, isRequestId } from './classify.js';
export { encodeFrame } from './encode-frame.js';
export { brandErrorClass } from './error-brand.js';
export { JsonRpcErrorCode } from './error-codes.js';
export {
  DEFAULT_MAX_FRAME_BYTES,
  type DecodedFrame,
  FrameDecoder,
} from './frame-decoder.js';
export { invalidMessageResponse } from './invalid-message-response.js';
export { frameTooLarge } from './local-errors.js';
export {
  errorFields,
  isLogLevel,
  LOG_LEVELS,
  type LogFields,
  type Logger,
  type LogLevel,
  logLevelEnabled,
  silentLogger,
} from './logger.js';
export {
  errorResponse,
  type JsonObject,
  type JsonRpcErrorObject,
  type JsonRpcErrorResponse,
  type JsonRpcMessage,
  type JsonRpcNotification,
  type JsonRpcRequest,
  type JsonRpcResponse,
  type JsonRpcSuccessResponse,
  notification,
  type RequestId,
  successResponse,
} from './messages.js';
export { RpcPeer } from './rpc-peer.js';
export { runtimeRequire } from './runtime-require.js';
export { encodeSseComment, encodeSseEvent, encodeSseMessage } from './sse.js';
export { stderrLogger } from './stderr-logger.js';
export { INTERNAL_ERROR_MESSAGE, LocalError, toWireError, WireError } from './wire-error.js';

/** Validation of a modern request's per-request `_meta` envelope. */
import {
  ErrorCode,
  isJsonObject,
  isRequestId,
  type JsonObject,
  type JsonRpcRequest,
  WireError,
} from '@agentd/rpc-frame';
import { type LifecycleOptions, resolveLifecycle } from './lifecycle-options.js';
import { isLoggingLevel, LOGGING_LEVELS, type LoggingLevel } from './logging-level.js';
import { MetaKey } from './meta-keys.js';
import { eraOfVersion } from './versions.js';

/** The client facts a modern request carries in `params._meta`. */
export interface ModernMeta {
  protocolVersion: string;
  clientCapabilities: JsonObject;
  clientInfo?: JsonObject;
  logLevel?: LoggingLevel;
  progressToken?: string | number;
}

function invalidParams(message: string): WireError {
  return new WireError(ErrorCode.InvalidParams, message);
}

/**
 * Validates a modern request's `_meta`: -32602 for missing or malformed fields (including a bad
 * logLevel), -32022 with `data: {supported, requested}` for a version this server does not serve
 * statelessly (a legacy version string included: those are only reachable through `initialize`).
 */
export function checkModernMeta(
  request: Pick<JsonRpcRequest, 'params'>,
  options?: LifecycleOptions,
): ModernMeta {
  const meta = request.params?._meta;
  if (!isJsonObject(meta)) throw invalidParams('Invalid params: missing params._meta');
  const version = meta[MetaKey.protocolVersion];
  if (typeof version !== 'string') {
    throw invalidParams(`Invalid params: missing _meta["${MetaKey.protocolVersion}"] (string)`);
  }
  const capabilities = meta[MetaKey.clientCapabilities];
  if (!isJsonObject(capabilities)) {
    throw invalidParams(`Invalid params: missing _meta["${MetaKey.clientCapabilities}"] (object)`);
  }
  const resolved = resolveLifecycle(options);
  if (eraOfVersion(version) !== 'modern' || !resolved.supported.includes(version)) {
    throw new WireError(ErrorCode.UnsupportedProtocolVersion, 'Unsupported protocol version', {
      supported: [...resolved.supported],
      requested: version,
    });
  }
  const out: ModernMeta = { protocolVersion: version, clientCapabilities: capabilities };
  const clientInfo = meta[MetaKey.clientInfo];
  if (clientInfo !== undefined) {
    if (!isJsonObject(clientInfo))
      throw invalidParams(`Invalid params: _meta["${MetaKey.clientInfo}"] must be an object`);
    out.clientInfo = clientInfo;
  }
  const logLevel = meta[MetaKey.logLevel];
  if (logLevel !== undefined) {
    if (!isLoggingLevel(logLevel)) {
      throw invalidParams(
        `Invalid params: _meta["${MetaKey.logLevel}"] must be one of ${LOGGING_LEVELS.join(', ')}`,
      );
    }
    out.logLevel = logLevel;
  }
  const progressToken = meta.progressToken;
  if (progressToken !== undefined) {
    if (!isRequestId(progressToken))
      throw invalidParams('Invalid params: _meta.progressToken must be a string or an integer');
    out.progressToken = progressToken;
  }
  return out;
}

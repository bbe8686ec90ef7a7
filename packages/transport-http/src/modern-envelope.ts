/** Modern (2026-07-28) POST checks the transport owns: `_meta` presence, then header/body equality. */

import { isLoggingLevel, MCP_NAME_FIELDS, MetaKey } from '@agentd/lifecycle';
import { ErrorCode, isJsonObject, isRequestId, type JsonRpcRequest, WireError } from '@agentd/rpc-frame';
import { decodeHeaderValue } from './header-value.js';
import type { HeaderReader } from './http-io.js';

/** Methods whose `Mcp-Name` header mirrors a body field (the rule lives in lifecycle). */
const NAME_FIELD = MCP_NAME_FIELDS;

function invalidMeta(message: string): WireError {
  return new WireError(ErrorCode.InvalidParams, message);
}

function mismatch(message: string): WireError {
  return new WireError(ErrorCode.HeaderMismatch, message);
}

/**
 * Returns the error to answer with HTTP 400, or undefined. Order matters (the conformance suite
 * checks it): missing `_meta` fields (-32602) first, then header presence/equality (-32020);
 * version support (-32022) and capabilities (-32021) are the core's and dispatch's.
 */
export function checkModernEnvelope(message: JsonRpcRequest, headers: HeaderReader): WireError | undefined {
  const meta = message.params?._meta;
  if (!isJsonObject(meta)) return invalidMeta('params._meta is required (protocol 2026-07-28)');
  const version = meta[MetaKey.protocolVersion];
  if (typeof version !== 'string')
    return invalidMeta(`params._meta["${MetaKey.protocolVersion}"] is required`);
  if (!isJsonObject(meta[MetaKey.clientCapabilities])) {
    return invalidMeta(`params._meta["${MetaKey.clientCapabilities}"] is required (use {} for none)`);
  }
  const info = meta[MetaKey.clientInfo];
  if (info !== undefined && !isJsonObject(info))
    return invalidMeta(`params._meta["${MetaKey.clientInfo}"] must be an object`);
  const level = meta[MetaKey.logLevel];
  if (level !== undefined && !isLoggingLevel(level)) {
    return invalidMeta(`params._meta["${MetaKey.logLevel}"] is not a logging level`);
  }
  const token = meta.progressToken;
  if (token !== undefined && !isRequestId(token))
    return invalidMeta('params._meta.progressToken must be a string or an integer');
  return (
    compareHeader(headers, 'mcp-protocol-version', 'MCP-Protocol-Version', version) ??
    compareHeader(headers, 'mcp-method', 'Mcp-Method', message.method) ??
    checkName(message, headers)
  );
}

function checkName(message: JsonRpcRequest, headers: HeaderReader): WireError | undefined {
  const field = NAME_FIELD[message.method];
  if (field === undefined) return undefined;
  const value = message.params?.[field];
  // A missing or non-string name is a malformed request: the handler answers -32602.
  if (typeof value !== 'string') return undefined;
  return compareHeader(headers, 'mcp-name', 'Mcp-Name', value);
}

function compareHeader(
  headers: HeaderReader,
  key: string,
  label: string,
  expected: string,
): WireError | undefined {
  const raw = headers.get(key);
  if (raw === null) return mismatch(`Header mismatch: ${label} header is required`);
  const decoded = decodeHeaderValue(raw);
  if (decoded === undefined) return mismatch(`Header mismatch: ${label} header has invalid characters`);
  if (decoded !== expected) {
    return mismatch(
      `Header mismatch: ${label} header value '${clip(decoded)}' does not match body value '${clip(expected)}'`,
    );
  }
  return undefined;
}

function clip(value: string): string {
  return value.length > 200 ? `${value.slice(0, 200)}…` : value;
}

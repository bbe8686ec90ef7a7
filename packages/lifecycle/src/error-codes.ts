/**
 * The one table of numeric codes that cross the wire: JSON-RPC 2.0's own (shared with
 * @agentd/rpc-frame, whose decoder answers with them), MCP's, and this framework's
 * implementation-defined ones in the range the spec leaves to servers (-32000..-32019).
 */
import { JsonRpcErrorCode } from '@agentd/rpc-frame';

export const ErrorCode = {
  ...JsonRpcErrorCode,
  /** The connection or the server is closing; the request was not (fully) run. */
  ConnectionClosed: -32000,
  /** Legacy Streamable HTTP: the `Mcp-Session-Id` names no live session (the official SDKs' code). */
  SessionNotFound: -32001,
  /** Resource not found, legacy era only (2026-07-28 uses -32602). */
  ResourceNotFound: -32002,
  /** Step-up authorization: the token lacks a scope this call needs. */
  InsufficientScope: -32003,
  HeaderMismatch: -32020,
  MissingRequiredClientCapability: -32021,
  UnsupportedProtocolVersion: -32022,
} as const;

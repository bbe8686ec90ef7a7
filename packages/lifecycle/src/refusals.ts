/**
 * The named wire refusals: every error text the protocol layer answers with, in one place, so
 * every transport and the server core give the same bad request the same JSON-RPC error.
 */
import {
  brandErrorClass,
  INTERNAL_ERROR_MESSAGE,
  type JsonObject,
  LOG_LEVELS,
  WireError,
} from '@agentd/rpc-frame';
import { ErrorCode } from './error-codes.js';
import { MetaKey } from './meta-keys.js';
import { type Era, MODERN_VERSION } from './versions.js';

/** Which rule refused a request: transports map it to their own status (HTTP: one table). */
export type RefusalReason =
  // Any method (the core, dispatch and handlers answer with these).
  | 'method-not-found'
  | 'invalid-params'
  | 'resource-not-found'
  | 'missing-capability'
  | 'connection-closing'
  | 'duplicate-id'
  // Socket transports (NDJSON framing).
  | 'input-budget-exceeded'
  // The per-request `_meta` envelope and the era rules (every transport).
  | 'missing-meta'
  | 'missing-protocol-version'
  | 'missing-client-capabilities'
  | 'bad-client-info'
  | 'bad-log-level'
  | 'bad-progress-token'
  | 'unsupported-version'
  | 'initialize-not-served'
  | 'removed-in-modern'
  | 'initialize-missing-version'
  | 'initialize-bad-capabilities'
  | 'header-mismatch'
  // Streamable HTTP only.
  | 'host-not-allowed'
  | 'unauthorized'
  | 'insufficient-scope'
  | 'auth-unavailable'
  | 'shutting-down'
  | 'not-acceptable'
  | 'stream-not-acceptable'
  | 'unsupported-media-type'
  | 'payload-too-large'
  | 'response-not-allowed'
  | 'session-required'
  | 'session-not-found'
  | 'session-version-mismatch'
  | 'initialize-with-session'
  | 'too-many-sessions'
  | 'stream-conflict'
  | 'event-not-found'
  | 'internal-error';

/** A WireError that names the rule behind it (`instanceof WireError` holds). */
export class Refusal extends WireError {
  readonly reason: RefusalReason;

  constructor(reason: RefusalReason, code: number, message: string, data?: unknown) {
    super(code, message, data);
    this.reason = reason;
  }
}

// Recognised across installed copies of this package, as WireError is across rpc-frame's.
brandErrorClass(Refusal, '@agentd/lifecycle/Refusal');

const invalidParams = (reason: RefusalReason, message: string, data?: JsonObject) =>
  new Refusal(reason, ErrorCode.InvalidParams, `Invalid params: ${message}`, data);
const invalidRequest = (reason: RefusalReason, message: string) =>
  new Refusal(reason, ErrorCode.InvalidRequest, message);
const metaField = (key: string) => `params._meta["${key}"]`;

function clip(value: string): string {
  return value.length > 200 ? `${value.slice(0, 200)}…` : value;
}

/** Method, tool and prompt names are client-chosen: clip them before they are echoed. */
function clipMethod(method: string): string {
  return method.length > 128 ? `${method.slice(0, 128)}…` : method;
}

const capabilityNames = (capabilities: JsonObject) => Object.keys(capabilities).join(', ');

/** The catalogue. Each entry builds a fresh Refusal (its stack is never sent). */
export const refuse = {
  /** -32601; `why` says what the server lacks (e.g. "this server delivers no notifications"). */
  methodNotFound: (method: string, why?: string) =>
    new Refusal(
      'method-not-found',
      ErrorCode.MethodNotFound,
      why === undefined
        ? `Method not found: ${clipMethod(String(method))}`
        : `Method not found: ${clipMethod(String(method))} (${why})`,
    ),
  /** -32602 `Invalid params: <message>`, for structurally malformed params. */
  invalidParams: (message: string, data?: JsonObject) => invalidParams('invalid-params', message, data),
  /** -32602 for a tools/call naming a tool that does not exist or is hidden: the same bytes either way. */
  unknownTool: (name: string) =>
    new Refusal('invalid-params', ErrorCode.InvalidParams, `Unknown tool: ${clipMethod(name)}`),
  /** -32602 for a prompt that does not exist or is hidden. */
  unknownPrompt: (name: string) =>
    new Refusal('invalid-params', ErrorCode.InvalidParams, `Unknown prompt: ${clipMethod(name)}`),
  /** -32602 for a completion/complete naming a resource template that does not exist or is hidden. */
  unknownResourceTemplate: (uri: string) =>
    new Refusal('invalid-params', ErrorCode.InvalidParams, 'Unknown resource template', { uri }),
  /** -32602 for a list cursor this server did not mint for this list. */
  invalidCursor: () => new Refusal('invalid-params', ErrorCode.InvalidParams, 'Invalid cursor'),
  /** -32602 for a multi-round-trip `requestState` that is malformed, tampered, expired or not this request's. */
  invalidRequestState: (reason: string) =>
    new Refusal('invalid-params', ErrorCode.InvalidParams, `Invalid requestState: ${reason}`),
  /** -32602 for one of `inputResponses` that does not answer what was asked under its key. */
  invalidInputResponse: (key: string, reason: string) =>
    new Refusal(
      'invalid-params',
      ErrorCode.InvalidParams,
      `Invalid inputResponses[${JSON.stringify(key)}]: ${reason}`,
    ),
  /** -32602 for a call without an argument its definition requires. */
  missingArgument: (name: string) =>
    new Refusal('invalid-params', ErrorCode.InvalidParams, `Missing required argument: ${name}`),
  /** -32602 for arguments their schema refuses; `detail` says which and why. */
  invalidArguments: (detail: string) =>
    new Refusal('invalid-params', ErrorCode.InvalidParams, `Invalid arguments: ${detail}`),
  /** A missing (or hidden: they look alike) resource: -32002 in the legacy era, -32602 in 2026-07-28. */
  resourceNotFound: (uri: string, era: Era) =>
    new Refusal(
      'resource-not-found',
      era === 'modern' ? ErrorCode.InvalidParams : ErrorCode.ResourceNotFound,
      'Resource not found',
      { uri },
    ),
  /** -32021 with the capabilities the client must declare for this request. */
  missingClientCapability: (requiredCapabilities: JsonObject) =>
    new Refusal(
      'missing-capability',
      ErrorCode.MissingRequiredClientCapability,
      'Missing required client capability',
      {
        requiredCapabilities,
      },
    ),
  /**
   * Legacy era: -32600 for a request whose handler needs client input the session's client did
   * not declare (the 2026-07-28 era answers `missingClientCapability` instead).
   */
  capabilityNotDeclared: (requiredCapabilities: JsonObject) =>
    new Refusal(
      'missing-capability',
      ErrorCode.InvalidRequest,
      `the client did not declare the capability: ${capabilityNames(requiredCapabilities)}`,
    ),
  /** -32603 for a request whose wait the caller cancelled before it could be answered. */
  requestCancelled: () => new Refusal('internal-error', ErrorCode.InternalError, 'Request cancelled'),
  subscriptionLimit: (limit: number) =>
    invalidParams('invalid-params', `at most ${limit} resource subscriptions per connection`, { limit }),
  duplicateId: (id: string | number) =>
    invalidRequest('duplicate-id', `Invalid Request: id ${JSON.stringify(id)} is already in use`),
  /** Sockets: unfinished input of all connections together exceeds the server's budget. */
  inputBudgetExceeded: (limit: number) =>
    invalidRequest(
      'input-budget-exceeded',
      `Invalid Request: unfinished input exceeds the server's budget of ${limit} bytes across all connections; closing the connection`,
    ),
  /** A request the peer's closing connection cut short (or never ran). */
  connectionClosing: () =>
    new Refusal('connection-closing', ErrorCode.ConnectionClosed, 'Connection is closing'),
  missingMeta: () => invalidParams('missing-meta', `params._meta is required (protocol ${MODERN_VERSION})`),
  missingProtocolVersion: () =>
    invalidParams('missing-protocol-version', `${metaField(MetaKey.protocolVersion)} is required (a string)`),
  missingClientCapabilities: () =>
    invalidParams(
      'missing-client-capabilities',
      `${metaField(MetaKey.clientCapabilities)} is required (an object; use {} for none)`,
    ),
  badClientInfo: () => invalidParams('bad-client-info', `${metaField(MetaKey.clientInfo)} must be an object`),
  badLogLevel: () =>
    invalidParams('bad-log-level', `${metaField(MetaKey.logLevel)} must be one of ${LOG_LEVELS.join(', ')}`),
  badProgressToken: () =>
    invalidParams('bad-progress-token', 'params._meta.progressToken must be a string or an integer'),
  unsupportedVersion: (supported: readonly string[], requested: string) =>
    new Refusal('unsupported-version', ErrorCode.UnsupportedProtocolVersion, 'Unsupported protocol version', {
      supported: [...supported],
      requested,
    }),
  /** A modern-only server names what it speaks so the client can switch to server/discover. */
  initializeNotServed: (supported: readonly string[]) =>
    new Refusal(
      'initialize-not-served',
      ErrorCode.MethodNotFound,
      `Method not found: initialize; this server speaks only ${supported.join(', ')} (stateless: use server/discover and per-request _meta)`,
      { supported: [...supported] },
    ),
  removedInModern: (method: string) =>
    new Refusal(
      'removed-in-modern',
      ErrorCode.MethodNotFound,
      `Method not found: ${method} (removed in the ${MODERN_VERSION} revision)`,
    ),
  initializeMissingVersion: () =>
    invalidParams('initialize-missing-version', 'initialize requires params.protocolVersion (a string)'),
  initializeBadCapabilities: () =>
    invalidParams('initialize-bad-capabilities', 'initialize params.capabilities must be an object'),
  headerMissing: (label: string) =>
    new Refusal('header-mismatch', ErrorCode.HeaderMismatch, `Header mismatch: ${label} header is required`),
  headerInvalid: (label: string) =>
    new Refusal(
      'header-mismatch',
      ErrorCode.HeaderMismatch,
      `Header mismatch: ${label} header has invalid characters or encoding`,
    ),
  headerDiffers: (label: string, header: string, body: string) =>
    new Refusal(
      'header-mismatch',
      ErrorCode.HeaderMismatch,
      `Header mismatch: ${label} header value '${clip(header)}' does not match body value '${clip(body)}'`,
    ),
  /** A mirrored tool parameter: the body value is not echoed (it may be large or private). */
  paramHeaderDiffers: (label: string) =>
    new Refusal(
      'header-mismatch',
      ErrorCode.HeaderMismatch,
      `Header mismatch: ${label} header value does not match the body`,
    ),
  hostNotAllowed: () => invalidRequest('host-not-allowed', 'Forbidden: Host or Origin not allowed'),
  unauthorized: () => invalidRequest('unauthorized', 'Unauthorized'),
  insufficientScope: () => invalidRequest('insufficient-scope', 'Forbidden: insufficient scope'),
  authUnavailable: () =>
    invalidRequest('auth-unavailable', 'Service Unavailable: cannot verify the access token now'),
  /** The same code on every transport as `connectionClosing` (HTTP adds 503). */
  shuttingDown: () => new Refusal('shutting-down', ErrorCode.ConnectionClosed, 'Server is shutting down'),
  notAcceptable: () =>
    invalidRequest(
      'not-acceptable',
      'Not Acceptable: Accept must list application/json and text/event-stream',
    ),
  streamNotAcceptable: () =>
    invalidRequest('stream-not-acceptable', 'Not Acceptable: GET needs Accept: text/event-stream'),
  unsupportedMediaType: () =>
    invalidRequest('unsupported-media-type', 'Unsupported Media Type: Content-Type must be application/json'),
  payloadTooLarge: (limit: number) =>
    invalidRequest('payload-too-large', `Payload Too Large: limit is ${limit} bytes`),
  responseNotAllowed: () =>
    invalidRequest(
      'response-not-allowed',
      `Invalid Request: clients must not send responses in protocol ${MODERN_VERSION}`,
    ),
  sessionRequired: () => invalidRequest('session-required', 'Bad Request: Mcp-Session-Id header is required'),
  sessionNotFound: () => new Refusal('session-not-found', ErrorCode.SessionNotFound, 'Session not found'),
  sessionVersionMismatch: (header: string, negotiated: string) =>
    invalidRequest(
      'session-version-mismatch',
      `Bad Request: MCP-Protocol-Version ${clip(header)} does not match this session's negotiated ${negotiated} (Mcp-Session-Id is legacy traffic; a ${clip(header)} request must not carry it)`,
    ),
  initializeWithSession: () =>
    invalidRequest('initialize-with-session', 'Bad Request: initialize must not carry Mcp-Session-Id'),
  tooManySessions: () =>
    new Refusal('too-many-sessions', ErrorCode.InternalError, 'Too many sessions, retry later'),
  streamConflict: () =>
    invalidRequest('stream-conflict', 'Conflict: this session already has an open GET stream'),
  /** Legacy resumption: the `Last-Event-ID` is malformed, of another session, or no longer stored. */
  eventNotFound: () =>
    invalidRequest(
      'event-not-found',
      'Last-Event-ID names no stored event of this session (malformed, expired or trimmed): open a new stream',
    ),
  internalError: () => new Refusal('internal-error', ErrorCode.InternalError, INTERNAL_ERROR_MESSAGE),
} as const;

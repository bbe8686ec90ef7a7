/** Legacy (2025-x) Streamable HTTP: sessions minted on initialize, GET streams, DELETE. */
import {
  type Classified,
  errorResponse,
  type JsonRpcRequest,
  type JsonRpcResponse,
  type RequestId,
  toWireError,
} from '@agentd/rpc-frame';
import type { CoreConnectionPort } from './core-port.js';
import { finishAnswer } from './finish-answer.js';
import { sendEmpty, sendJson, sendRpcError } from './replies.js';
import { SessionSink } from './session-sink.js';
import { type Session, SessionStore } from './session-store.js';
import { SseStream } from './sse-stream.js';
import { type Caller, headerOf, makePeer, type TransportContext } from './transport-context.js';

const SESSION_HEADER = 'mcp-session-id';
/** Implementation-defined code the official SDKs use for an unknown session. */
const SESSION_NOT_FOUND = -32001;

/**
 * Finds the caller's session, or answers 400 (no id) / 404 (unknown, ended, or another
 * principal's) / 400 (protocol version header disagreeing with the negotiated one).
 */
function sessionOf(context: TransportContext, caller: Caller, id: RequestId | null): Session | undefined {
  const sessionId = headerOf(caller, SESSION_HEADER);
  if (sessionId === undefined) {
    sendRpcError(
      caller.out,
      400,
      id,
      { code: -32600, message: 'Bad Request: Mcp-Session-Id header is required' },
      caller.corsHeaders,
    );
    return undefined;
  }
  const session = context.sessions.get(sessionId);
  if (session === undefined || session.principal !== caller.principal?.auth.principal) {
    sendRpcError(
      caller.out,
      404,
      id,
      { code: SESSION_NOT_FOUND, message: 'Session not found' },
      caller.corsHeaders,
    );
    return undefined;
  }
  const version = headerOf(caller, 'mcp-protocol-version');
  if (version !== undefined && version !== session.version) {
    sendRpcError(
      caller.out,
      400,
      id,
      {
        code: -32600,
        message: `Bad Request: MCP-Protocol-Version ${version} does not match this session's negotiated ${session.version} (Mcp-Session-Id is legacy traffic; a ${version} request must not carry it)`,
      },
      caller.corsHeaders,
    );
    return undefined;
  }
  session.lastSeen = Date.now();
  return session;
}

export async function serveLegacyPost(
  context: TransportContext,
  caller: Caller,
  frame: Classified,
): Promise<void> {
  if (frame.kind === 'request' && frame.message.method === 'initialize') {
    await initialize(context, caller, frame.message);
    return;
  }
  const id = frame.kind === 'request' ? frame.message.id : null;
  const session = sessionOf(context, caller, id);
  if (session === undefined) return;
  const connection = session.connection;
  if (connection === undefined) return;
  if (frame.kind !== 'request') {
    // Notifications and the client's answers to our requests (routed to sendRequest callers).
    await connection.handle(frame).catch(() => undefined);
    sendEmpty(caller.out, 202, caller.corsHeaders);
    return;
  }
  await answer(context, caller, session, connection, frame.message);
}

async function answer(
  context: TransportContext,
  caller: Caller,
  session: Session,
  connection: CoreConnectionPort,
  request: JsonRpcRequest,
): Promise<void> {
  const stream = new SseStream(
    caller.out,
    `${session.sink.id}/${context.nextId()}`,
    context.sse,
    caller.corsHeaders,
  );
  const exchange = {
    longLived: () => false,
    shutdown(force: boolean) {
      if (force) stream.close('overflow');
    },
  };
  context.exchanges.add(exchange);
  session.active++;
  let response: JsonRpcResponse | undefined;
  try {
    // Legacy: a dropped POST stream is not a cancellation (notifications/cancelled is). A
    // server-to-client request that can no longer ride it goes to the session's GET stream.
    response = await connection.handle(
      { kind: 'request', message: request },
      {
        notify: (message) => {
          if (!stream.write(message) && 'id' in message) session.sink.write(message);
        },
      },
    );
  } catch (thrown) {
    response = errorResponse(request.id, toWireError(thrown).toJSON());
  } finally {
    session.active--;
    session.lastSeen = Date.now();
    context.exchanges.delete(exchange);
  }
  finishAnswer(caller, stream, response, false);
}

async function initialize(context: TransportContext, caller: Caller, request: JsonRpcRequest): Promise<void> {
  if (headerOf(caller, SESSION_HEADER) !== undefined) {
    sendRpcError(
      caller.out,
      400,
      request.id,
      { code: -32600, message: 'Bad Request: initialize must not carry Mcp-Session-Id' },
      caller.corsHeaders,
    );
    return;
  }
  if (!context.sessions.makeRoom(caller.principal?.auth.principal)) {
    sendRpcError(
      caller.out,
      503,
      request.id,
      { code: -32603, message: 'Too many sessions, retry later' },
      { ...caller.corsHeaders, 'retry-after': '5' },
    );
    return;
  }
  const sessionId = `${context.options.sessionIdPrefix}${SessionStore.mintId()}`;
  const sink = new SessionSink(`http-session-${sessionId}`);
  const connection = context.core.openConnection(makePeer(sink.id, caller), sink);
  let response: JsonRpcResponse | undefined;
  try {
    response = await connection.handle({ kind: 'request', message: request });
  } catch (thrown) {
    response = errorResponse(request.id, toWireError(thrown).toJSON());
  }
  if (response === undefined || 'error' in response) {
    connection.close();
    const failed = response ?? errorResponse(request.id, { code: -32603, message: 'Internal error' });
    sendJson(caller.out, 400, failed, caller.corsHeaders);
    return;
  }
  const version = response.result.protocolVersion;
  context.sessions.add({
    id: sessionId,
    sink,
    principal: caller.principal?.auth.principal,
    connection,
    version: typeof version === 'string' ? version : '',
    lastSeen: Date.now(),
    active: 0,
  });
  sendJson(caller.out, 200, response, { ...caller.corsHeaders, 'mcp-session-id': sessionId });
}

/** GET: the session's server-to-client SSE stream (one at a time). */
export function serveLegacyGet(context: TransportContext, caller: Caller): void {
  const session = sessionOf(context, caller, null);
  if (session === undefined) return;
  if (session.sink.stream !== undefined) {
    sendRpcError(
      caller.out,
      409,
      null,
      { code: -32600, message: 'Conflict: this session already has an open GET stream' },
      caller.corsHeaders,
    );
    return;
  }
  const stream = new SseStream(caller.out, `${session.sink.id}/get`, context.sse, caller.corsHeaders);
  stream.start();
  session.sink.attach(stream);
  stream.onClose(() => {
    session.lastSeen = Date.now();
  });
}

export function serveLegacyDelete(context: TransportContext, caller: Caller): void {
  const session = sessionOf(context, caller, null);
  if (session === undefined) return;
  context.sessions.end(session.id);
  sendEmpty(caller.out, 204, caller.corsHeaders);
}

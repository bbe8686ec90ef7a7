/** Legacy (2025-x) Streamable HTTP: sessions minted on initialize, GET streams, DELETE. */
import { refuse } from '@agentd/lifecycle';
import {
  type Classified,
  errorResponse,
  type JsonRpcRequest,
  type JsonRpcResponse,
  type RequestId,
} from '@agentd/rpc-frame';
import type { CoreConnection } from '@agentd/server';
import { finishAnswer } from './finish-answer.js';
import { answerStatus } from './http-status.js';
import { sendEmpty, sendJson, sendRefusal } from './replies.js';
import { SessionSink } from './session-sink.js';
import { type Session, SessionStore } from './session-store.js';
import { SseStream } from './sse-stream.js';
import {
  type Caller,
  headerOf,
  makePeer,
  type TransportContext,
  traceCarrierOf,
} from './transport-context.js';

/**
 * The caller's session, or answers 404 (unknown, ended, or another principal's) / 400 (protocol
 * version header disagreeing with the negotiated one). The header's presence was checked by the
 * lifecycle classification.
 */
function sessionOf(
  context: TransportContext,
  caller: Caller,
  id: RequestId | null,
  sessionId: string,
): Session | undefined {
  const session = context.sessions.get(sessionId);
  if (session === undefined || session.principal !== caller.principal?.auth.principal) {
    sendRefusal(caller.out, id, refuse.sessionNotFound(), caller.corsHeaders);
    return undefined;
  }
  const version = headerOf(caller, 'mcp-protocol-version');
  if (version !== undefined && version !== session.version) {
    sendRefusal(caller.out, id, refuse.sessionVersionMismatch(version, session.version), caller.corsHeaders);
    return undefined;
  }
  session.lastSeen = Date.now();
  return session;
}

export async function serveLegacyPost(
  context: TransportContext,
  caller: Caller,
  frame: Exclude<Classified, { kind: 'invalid' }>,
  sessionId: string | undefined,
): Promise<void> {
  if (sessionId === undefined) {
    // The classification lets only `initialize` through without a session.
    await initialize(context, caller, frame.message as JsonRpcRequest);
    return;
  }
  const id = frame.kind === 'request' ? frame.message.id : null;
  const session = sessionOf(context, caller, id, sessionId);
  if (session === undefined) return;
  const connection = session.connection;
  if (connection === undefined) return;
  if (frame.kind !== 'request') {
    // Notifications and the client's answers to our requests (routed to sendRequest callers).
    await connection.handle(frame);
    sendEmpty(caller.out, 202, caller.corsHeaders);
    return;
  }
  await answer(context, caller, session, connection, frame.message);
}

async function answer(
  context: TransportContext,
  caller: Caller,
  session: Session,
  connection: CoreConnection,
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
        traceCarrier: traceCarrierOf(caller),
      },
    );
  } finally {
    session.active--;
    session.lastSeen = Date.now();
    context.exchanges.delete(exchange);
  }
  finishAnswer(caller, stream, response, 'legacy');
}

async function initialize(context: TransportContext, caller: Caller, request: JsonRpcRequest): Promise<void> {
  if (!context.sessions.makeRoom(caller.principal?.auth.principal)) {
    sendRefusal(caller.out, request.id, refuse.tooManySessions(), {
      ...caller.corsHeaders,
      'retry-after': '5',
    });
    return;
  }
  const sessionId = `${context.options.sessionIdPrefix}${SessionStore.mintId()}`;
  const sink = new SessionSink(`http-session-${sessionId}`);
  const connection = context.core.openConnection(makePeer(sink.id, caller, sessionId), sink);
  const response = await connection.handle(
    { kind: 'request', message: request },
    { traceCarrier: traceCarrierOf(caller) },
  );
  if (response === undefined || 'error' in response) {
    connection.close();
    const failed = response ?? errorResponse(request.id, refuse.internalError().toJSON());
    sendJson(caller.out, answerStatus(failed, 'legacy', true), failed, caller.corsHeaders);
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
export function serveLegacyGet(context: TransportContext, caller: Caller, sessionId: string): void {
  const session = sessionOf(context, caller, null, sessionId);
  if (session === undefined) return;
  if (session.sink.stream !== undefined) {
    sendRefusal(caller.out, null, refuse.streamConflict(), caller.corsHeaders);
    return;
  }
  const stream = new SseStream(caller.out, `${session.sink.id}/get`, context.sse, caller.corsHeaders);
  stream.start();
  session.sink.attach(stream);
  stream.onClose(() => {
    session.lastSeen = Date.now();
  });
}

export function serveLegacyDelete(context: TransportContext, caller: Caller, sessionId: string): void {
  const session = sessionOf(context, caller, null, sessionId);
  if (session === undefined) return;
  context.sessions.end(session.id);
  sendEmpty(caller.out, 204, caller.corsHeaders);
}

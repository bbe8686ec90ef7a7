/** Legacy (2025-x) Streamable HTTP: sessions minted on initialize, GET streams, DELETE. */
import { refuse } from '@agentd/lifecycle';
import {
  type Classified,
  errorResponse,
  type JsonRpcRequest,
  type JsonRpcResponse,
  type RequestId,
} from '@agentd/rpc-frame';
import type { CoreConnection, Peer, PeerAuth } from '@agentd/server';
import { finishAnswer } from './finish-answer.js';
import { answerStatus } from './http-status.js';
import { cancelCarried, carryRequest, deliverLegacyMessage } from './legacy-cancel.js';
import { sendEmpty, sendJson, sendRefusal } from './replies.js';
import { resumeStream } from './resume-stream.js';
import { SessionSink } from './session-sink.js';
import { type Session, SessionStore } from './session-store.js';
import { SseStream } from './sse-stream.js';
import { StreamRecorder } from './stream-recorder.js';
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
  session.credentials.auth = caller.principal?.auth;
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
    await deliverLegacyMessage(context.core.logger, session, connection, frame);
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
  const recorder = recorderFor(context, session, 'request');
  const stream = new SseStream(
    caller.out,
    `${session.sink.id}/${context.nextId()}`,
    context.sse,
    caller.corsHeaders,
    recorder,
  );
  const exchange = {
    longLived: () => false,
    shutdown(force: boolean) {
      if (force) stream.close('overflow');
    },
  };
  context.exchanges.add(exchange);
  session.active++;
  const carried = carryRequest(session, request.id, caller.out);
  let response: JsonRpcResponse | undefined;
  try {
    // Legacy: a dropped POST stream is not a cancellation (notifications/cancelled is). A
    // server-to-client request that can no longer ride it (nor be recorded on it for a
    // resuming client) goes to the session's GET stream.
    response = await connection.handle(
      { kind: 'request', message: request },
      {
        notify: (message) => {
          if (!stream.write(message) && 'id' in message) session.sink.write(message);
        },
        ...(recorder === undefined ? {} : { closeStream: () => stream.disconnect() }),
        traceCarrier: traceCarrierOf(caller),
      },
    );
  } finally {
    carried?.();
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
  const credentials = { auth: caller.principal?.auth };
  const connection = context.core.openConnection(
    sessionPeer(makePeer(sink.id, caller, sessionId), credentials),
    sink,
  );
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
    credentials,
    connection,
    version: typeof version === 'string' ? version : '',
    lastSeen: Date.now(),
    active: 0,
    carriers: new Map(),
    streams: new Set(),
  });
  sendJson(caller.out, 200, response, { 'mcp-session-id': sessionId, ...caller.corsHeaders });
}

/** The session's peer, whose `auth` is always that of the session's latest request (same principal). */
function sessionPeer(peer: Peer, credentials: { auth: PeerAuth | undefined }): Peer {
  if (peer.auth === undefined) return peer;
  return Object.defineProperty({ ...peer }, 'auth', { enumerable: true, get: () => credentials.auth });
}

/** The recorder of a new resumable stream, when the endpoint has an event store. */
function recorderFor(
  context: TransportContext,
  session: Session,
  kind: 'request' | 'standalone',
): StreamRecorder | undefined {
  const store = context.options.eventStore;
  if (store === undefined) return undefined;
  return new StreamRecorder(
    store,
    { sessionId: session.id, principal: session.principal, kind },
    context.core.logger,
    session.streams,
  );
}

/**
 * GET: the session's server-to-client SSE stream (one at a time), or, with `Last-Event-ID`, the
 * rest of the stream that event belongs to (a POST's or an earlier GET's).
 */
export async function serveLegacyGet(
  context: TransportContext,
  caller: Caller,
  sessionId: string,
): Promise<void> {
  const lastEventId = headerOf(caller, 'last-event-id');
  if (lastEventId !== undefined && context.options.eventStore !== undefined) {
    // Held here: the session's own checks (principal, protocol version header) come first.
    const held = context.sessions.get(sessionId) !== undefined;
    const local = held ? sessionOf(context, caller, null, sessionId) : undefined;
    if (held && local === undefined) return;
    await resumeStream(context, caller, sessionId, lastEventId, context.options.eventStore, local);
    return;
  }
  const session = sessionOf(context, caller, null, sessionId);
  if (session === undefined) return;
  if (session.sink.stream !== undefined) {
    sendRefusal(caller.out, null, refuse.streamConflict(), caller.corsHeaders);
    return;
  }
  const recorder = recorderFor(context, session, 'standalone');
  const stream = new SseStream(
    caller.out,
    `${session.sink.id}/get`,
    context.sse,
    caller.corsHeaders,
    recorder,
  );
  stream.start();
  session.sink.attach(stream, recorder);
  stream.onClose(() => {
    session.lastSeen = Date.now();
  });
}

export async function serveLegacyDelete(
  context: TransportContext,
  caller: Caller,
  sessionId: string,
): Promise<void> {
  const session = sessionOf(context, caller, null, sessionId);
  if (session === undefined) return;
  if (session.connection !== undefined) await cancelCarried(context.core.logger, session, session.connection);
  context.sessions.end(session.id);
  sendEmpty(caller.out, 204, caller.corsHeaders);
}

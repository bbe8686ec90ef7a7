/**
 * Legacy GET + `Last-Event-ID` (SEP-1699): replays the events after that id from the one stream
 * it names (a POST's or a GET's, never another's), then follows the stream live until it ends
 * (a request stream with its response). Served from the event store alone, so with a shared store
 * it works on any replica, also one that does not hold the session.
 */
import { refuse } from '@agentd/lifecycle';
import { errorFields } from '@agentd/rpc-frame';
import {
  type EventStore,
  endsStream,
  eventIdOf,
  parseEventId,
  type StoredEvent,
  type StreamOwner,
} from './event-store.js';
import { sendRefusal } from './replies.js';
import type { Session } from './session-store.js';
import { SseStream } from './sse-stream.js';
import type { Caller, TransportContext } from './transport-context.js';

export async function resumeStream(
  context: TransportContext,
  caller: Caller,
  sessionId: string,
  lastEventId: string,
  store: EventStore,
  /** The session when it is held here (and passed its own checks); a follower keeps it from being reaped. */
  local: Session | undefined,
): Promise<void> {
  const position = parseEventId(lastEventId);
  const owner = position === undefined ? undefined : await store.owner(position.streamId);
  if (
    position === undefined ||
    owner === undefined ||
    owner.sessionId !== sessionId ||
    owner.principal !== caller.principal?.auth.principal
  ) {
    // Not a stream of this session. Held nowhere we can see: the session is gone (re-initialize).
    sendRefusal(
      caller.out,
      null,
      local !== undefined ? refuse.eventNotFound() : refuse.sessionNotFound(),
      caller.corsHeaders,
    );
    return;
  }
  // A poll (`read` with an aborted signal answers at once); the signal is made here, not at module
  // scope, because workerd refuses such work in a Worker's global scope.
  const first = await store.read(position.streamId, position.seq, AbortSignal.abort());
  if (first === 'gone') {
    sendRefusal(caller.out, null, refuse.eventNotFound(), caller.corsHeaders);
    return;
  }
  const stream = new SseStream(caller.out, `resume/${position.streamId}`, context.sse, caller.corsHeaders);
  const stop = new AbortController();
  const exchange = {
    longLived: () => true,
    shutdown: () => stream.end(),
  };
  context.exchanges.add(exchange);
  if (local !== undefined) local.active++;
  stream.onClose(() => {
    stop.abort();
    context.exchanges.delete(exchange);
    if (local !== undefined) {
      local.active--;
      local.lastSeen = Date.now();
    }
  });
  stream.advise();
  void follow(context, stream, store, position.streamId, owner, position.seq, first, stop.signal);
}

async function follow(
  context: TransportContext,
  stream: SseStream,
  store: EventStore,
  streamId: string,
  owner: StreamOwner,
  after: number,
  first: readonly StoredEvent[],
  signal: AbortSignal,
): Promise<void> {
  let batch: readonly StoredEvent[] | 'gone' = first;
  let last = after;
  try {
    for (;;) {
      if (batch === 'gone') break;
      for (const event of batch) {
        last = event.seq;
        if (event.message !== undefined) stream.relay(eventIdOf(streamId, event.seq), event.message);
        if (endsStream(event, owner.kind)) {
          stream.end();
          return;
        }
      }
      if (stream.closed) return;
      batch = await store.read(streamId, last, signal);
    }
  } catch (error) {
    // The store failed (Redis down): end the connection; the client retries after `retry:`.
    context.core.logger.warn('sse event store read failed; ending the resumed stream', {
      streamId,
      ...errorFields(error),
    });
  }
  stream.end();
}

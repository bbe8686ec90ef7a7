/**
 * The event store seam of legacy (2025-11-25) SSE resumability, SEP-1699: every event of a
 * resumable stream is recorded, so a client whose connection closed resumes with GET +
 * `Last-Event-ID` and receives the rest of that one stream. The in-memory default keeps a
 * replica's own streams; a shared store (`@agentd/redis`) lets the resumed GET land on any replica.
 */
import type { JsonRpcMessage } from '@agentd/rpc-frame';

/** Who may resume a stream, and what kind of stream it is. */
export interface StreamOwner {
  /** The legacy session (`Mcp-Session-Id`) the stream belongs to. */
  readonly sessionId: string;
  /** The session's principal (undefined: anonymous); another principal cannot resume it. */
  readonly principal: string | undefined;
  /** `request`: a POST's stream, finished by its response; `standalone`: the session's GET stream. */
  readonly kind: 'request' | 'standalone';
}

/**
 * One recorded event and its position in the stream. An event without a message is the priming
 * event (seq 0) or, later, the end of a request stream that finished without a response (cancelled).
 */
export interface StoredEvent {
  readonly seq: number;
  readonly message?: JsonRpcMessage;
}

export interface EventStore {
  /** Registers a new stream before its first event. */
  createStream(streamId: string, owner: StreamOwner): Promise<void>;
  /** Records an event; a stream's events are appended in `seq` order by its one writer. */
  append(streamId: string, event: StoredEvent): Promise<void>;
  /** The stream's owner, or undefined when the stream is unknown or expired. */
  owner(streamId: string): Promise<StreamOwner | undefined>;
  /**
   * The events after `afterSeq`, oldest first, waiting (until `signal` aborts) while there are
   * none yet. Resolves to `gone` when the stream is unknown or expired, or when events after
   * `afterSeq` were already dropped (a gap the reader must not paper over); to `[]` on abort.
   * With an already aborted `signal` it answers at once (a poll).
   */
  read(streamId: string, afterSeq: number, signal: AbortSignal): Promise<readonly StoredEvent[] | 'gone'>;
  /** Forgets a stream: a request stream delivered whole on its own connection is not resumed. */
  delete(streamId: string): Promise<void>;
}

/** `<streamId>:<seq>`: the event id a client echoes in `Last-Event-ID`, naming its stream. */
export function eventIdOf(streamId: string, seq: number): string {
  return `${streamId}:${seq}`;
}

const EVENT_ID = /^([A-Za-z0-9_-]{8,64}):(0|[1-9][0-9]{0,15})$/;

/** The stream and position a `Last-Event-ID` names, or undefined when it is not one of ours. */
export function parseEventId(value: string): { streamId: string; seq: number } | undefined {
  const match = EVENT_ID.exec(value);
  if (match === null) return undefined;
  const seq = Number(match[2]);
  return Number.isSafeInteger(seq) ? { streamId: match[1] as string, seq } : undefined;
}

/** 96 random bits, base64url: unguessable stream ids, unique across replicas without coordination. */
export function mintStreamId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(12));
  let text = '';
  for (const byte of bytes) text += String.fromCharCode(byte);
  return btoa(text).replace(/\+/g, '-').replace(/\//g, '_');
}

/** True for the event after which a resumed stream ends: its end marker, or a request stream's response. */
export function endsStream(event: StoredEvent, kind: StreamOwner['kind']): boolean {
  if (event.message === undefined) return event.seq > 0;
  return kind === 'request' && !('method' in event.message);
}

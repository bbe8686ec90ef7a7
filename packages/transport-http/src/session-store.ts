/** Legacy sessions: crypto-random ids, bounded count per principal and in total, idle TTL reaping. */
import type { RequestId } from '@agentd/rpc-frame';
import type { CoreConnection, PeerAuth } from '@agentd/server';
import type { SessionSink } from './session-sink.js';
import { startInterval, stopTimer, type Timer } from './timer.js';

/** A POST answering one request of a session: the request's id and its exchange's runner. */
export interface Carrier {
  readonly id: RequestId;
  readonly run: (task: () => void) => void;
}

export interface Session {
  readonly id: string;
  readonly sink: SessionSink;
  /** Principal that created the session (undefined: anonymous); other principals cannot use its id. */
  readonly principal: string | undefined;
  /**
   * The auth of the session's latest request, which the session's peer reports as `peer.auth`:
   * a refreshed or stepped-up token of the same principal takes effect at once (new scopes).
   */
  readonly credentials: { auth: PeerAuth | undefined };
  connection: CoreConnection | undefined;
  /** Negotiated protocol version (from the initialize result). */
  version: string;
  lastSeen: number;
  /** Requests still being answered; a busy session is never reaped. */
  active: number;
  /** The POSTs answering requests, by request id key, with their runners (see `legacy-cancel.ts`). */
  readonly carriers: Map<string, Carrier>;
  /** Its resumable streams still in the event store: an ended session's can never be resumed. */
  readonly streams: Set<string>;
}

function isIdle(session: Session): boolean {
  return session.active === 0 && session.sink.stream === undefined;
}

export interface SessionStoreOptions {
  ttlMs: number;
  maxSessions: number;
  maxSessionsPerPrincipal: number;
  /** Called once for each session that ends (DELETE, expiry, eviction, shutdown). */
  onEnd?: (session: Session) => void;
}

/** Anonymous callers share one quota. */
const ANONYMOUS = '\u0000anonymous';

export class SessionStore {
  readonly #sessions = new Map<string, Session>();
  readonly #byPrincipal = new Map<string, Set<Session>>();
  readonly #options: SessionStoreOptions;
  // Started with the first session: Workers forbid timers outside a request.
  #timer: Timer | undefined;

  constructor(options: SessionStoreOptions) {
    this.#options = options;
  }

  get size(): number {
    return this.#sessions.size;
  }

  /**
   * Room for one more session of `principal`. At its own quota or at the total cap, ends that
   * principal's least recently used idle session (no request in flight, no GET stream); never
   * another principal's. False when there is nothing of its own to end.
   */
  makeRoom(principal: string | undefined): boolean {
    const own = this.#byPrincipal.get(principal ?? ANONYMOUS);
    const ownCount = own?.size ?? 0;
    if (ownCount < this.#options.maxSessionsPerPrincipal && this.#sessions.size < this.#options.maxSessions)
      return true;
    let oldest: Session | undefined;
    for (const session of own ?? []) {
      if (!isIdle(session)) continue;
      if (oldest === undefined || session.lastSeen < oldest.lastSeen) oldest = session;
    }
    if (oldest === undefined) return false;
    this.end(oldest.id);
    return true;
  }

  /** 128 random bits, hex: visible ASCII as the spec requires, unguessable. */
  static mintId(): string {
    const bytes = crypto.getRandomValues(new Uint8Array(16));
    let hex = '';
    for (const byte of bytes) hex += byte.toString(16).padStart(2, '0');
    return hex;
  }

  add(session: Session): void {
    this.#sessions.set(session.id, session);
    const key = session.principal ?? ANONYMOUS;
    let own = this.#byPrincipal.get(key);
    if (own === undefined) {
      own = new Set();
      this.#byPrincipal.set(key, own);
    }
    own.add(session);
    if (this.#timer === undefined) {
      const every = Math.max(50, Math.min(60_000, Math.floor(this.#options.ttlMs / 2)));
      this.#timer = startInterval(() => this.reap(Date.now()), every);
    }
  }

  get(id: string): Session | undefined {
    return this.#sessions.get(id);
  }

  /** Ends a session: its GET stream, its core connection (subscriptions, in-flight requests). */
  end(id: string): boolean {
    const session = this.#sessions.get(id);
    if (session === undefined) return false;
    this.#sessions.delete(id);
    const key = session.principal ?? ANONYMOUS;
    const own = this.#byPrincipal.get(key);
    own?.delete(session);
    if (own?.size === 0) this.#byPrincipal.delete(key);
    session.sink.close();
    session.connection?.close();
    session.connection = undefined;
    this.#options.onEnd?.(session);
    if (this.#sessions.size === 0) this.#stopReaper();
    return true;
  }

  /** Ends sessions idle for longer than the TTL with no request in flight and no GET stream. */
  reap(now: number): number {
    const cutoff = now - this.#options.ttlMs;
    let reaped = 0;
    for (const session of [...this.#sessions.values()]) {
      if (session.lastSeen <= cutoff && isIdle(session)) {
        this.end(session.id);
        reaped++;
      }
    }
    return reaped;
  }

  /** Ends every session's GET stream (shutdown), keeping the sessions until requests drain. */
  endStreams(): void {
    for (const session of this.#sessions.values()) session.sink.stream?.end();
  }

  endAll(): void {
    for (const id of [...this.#sessions.keys()]) this.end(id);
    this.#stopReaper();
  }

  #stopReaper(): void {
    stopTimer(this.#timer);
    this.#timer = undefined;
  }
}

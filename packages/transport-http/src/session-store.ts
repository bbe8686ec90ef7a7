/** Legacy sessions: crypto-random ids, bounded count, idle TTL reaping. */
import { randomBytes } from 'node:crypto';
import type { CoreConnectionPort } from './core-port.js';
import type { SessionSink } from './session-sink.js';

export interface Session {
  readonly id: string;
  readonly sink: SessionSink;
  /** Principal that created the session; other principals cannot use its id. */
  readonly principal: string | undefined;
  connection: CoreConnectionPort | undefined;
  /** Negotiated protocol version (from the initialize result). */
  version: string;
  lastSeen: number;
  /** Requests still being answered; a busy session is never reaped. */
  active: number;
}

function isIdle(session: Session): boolean {
  return session.active === 0 && session.sink.stream === undefined;
}

export interface SessionStoreOptions {
  ttlMs: number;
  maxSessions: number;
}

export class SessionStore {
  readonly #sessions = new Map<string, Session>();
  readonly #options: SessionStoreOptions;
  readonly #timer: NodeJS.Timeout;

  constructor(options: SessionStoreOptions) {
    this.#options = options;
    const every = Math.max(50, Math.min(60_000, Math.floor(options.ttlMs / 2)));
    this.#timer = setInterval(() => this.reap(Date.now()), every);
    this.#timer.unref();
  }

  get size(): number {
    return this.#sessions.size;
  }

  get full(): boolean {
    return this.#sessions.size >= this.#options.maxSessions;
  }

  /**
   * Room for one more session: at the cap, ends the least recently used idle session (no request
   * in flight, no GET stream). False when every session is busy.
   */
  makeRoom(): boolean {
    if (!this.full) return true;
    let oldest: Session | undefined;
    for (const session of this.#sessions.values()) {
      if (!isIdle(session)) continue;
      if (oldest === undefined || session.lastSeen < oldest.lastSeen) oldest = session;
    }
    if (oldest === undefined) return false;
    this.end(oldest.id);
    return true;
  }

  /** 128 random bits, hex: visible ASCII as the spec requires, unguessable. */
  static mintId(): string {
    return randomBytes(16).toString('hex');
  }

  add(session: Session): void {
    this.#sessions.set(session.id, session);
  }

  get(id: string): Session | undefined {
    return this.#sessions.get(id);
  }

  /** Ends a session: its GET stream, its core connection (subscriptions, in-flight requests). */
  end(id: string): boolean {
    const session = this.#sessions.get(id);
    if (session === undefined) return false;
    this.#sessions.delete(id);
    session.sink.close();
    session.connection?.close();
    session.connection = undefined;
    return true;
  }

  /** Ends sessions idle for longer than the TTL with no request in flight and no GET stream. */
  reap(now: number): number {
    const cutoff = now - this.#options.ttlMs;
    let reaped = 0;
    for (const session of this.#sessions.values()) {
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
    clearInterval(this.#timer);
  }
}

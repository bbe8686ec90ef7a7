/** uri -> subscribers: one-shot, repeated and distinct-writer pushes, with listen streams as writers. */
import { type JsonRpcMessage, type JsonRpcNotification, notification } from '@agentd/rpc-frame';
import { canonicalizeUri } from './canonical-uri.js';
import type { BusEvent, EventBus } from './event-bus.js';
import { type ListChangedKind, ListenStream } from './listen-stream.js';
import type { PushWriter } from './push-writer.js';

export interface SubscriptionRegistryOptions {
  /** Maps a uri to its key. Default: canonicalizeUri. Compose it to add scheme aliases. */
  canonicalize?: (uri: string) => string;
  /**
   * Joins registries of other processes: every notify is published to the bus, and the bus's
   * events are applied here exactly as if raised locally. Default: this registry alone.
   */
  bus?: EventBus;
}

interface Subscriber {
  /** The uri as this subscriber spelled it: its `resources/updated` carries this spelling. */
  readonly uri: string;
  readonly writer: PushWriter;
}

/** The internal key of a listen stream, owned by its connection. */
function listenKey(connectionId: string, stream: ListenStream): string {
  return `${connectionId}\u0000${stream.id}`;
}

function isListenKey(key: string): boolean {
  return key.includes('\u0000');
}

/**
 * With a `bus`, every notify reaches the other members' writers with the same semantics.
 * Writes never block: each writer is bounded and non-blocking, and a writer that is closed or
 * fails a write is pruned from every entry on the spot.
 */
export class SubscriptionRegistry {
  readonly canonicalize: (uri: string) => string;
  private readonly byUri = new Map<string, Map<string, Subscriber>>();
  private readonly byKey = new Map<string, Set<string>>();
  /** Connection-level writers that take broadcasts without a uri subscription. */
  private readonly channels = new Map<string, PushWriter>();
  /** connectionId -> keys of the listen streams it opened. */
  private readonly owned = new Map<string, Set<string>>();

  private readonly bus: EventBus | undefined;
  private readonly unsubscribe: (() => void) | undefined;

  constructor(options: SubscriptionRegistryOptions = {}) {
    this.canonicalize = options.canonicalize ?? canonicalizeUri;
    this.bus = options.bus;
    this.unsubscribe = options.bus?.subscribe((event) => this.applyRemote(event));
  }

  /** Leaves the bus (the registry keeps serving its own writers). */
  leaveBus(): void {
    this.unsubscribe?.();
  }

  /**
   * Subscribes a connection to a uri. Idempotent per (connection, canonical uri): a repeat is a
   * no-op, except that a different writer replaces the old one. The embedder gates before calling.
   */
  register(connectionId: string, uri: string, writer: PushWriter): void {
    const canonical = this.canonicalize(uri);
    let entry = this.byUri.get(canonical);
    if (entry === undefined) {
      entry = new Map();
      this.byUri.set(canonical, entry);
    }
    const existing = entry.get(connectionId);
    if (existing !== undefined && existing.writer === writer) return;
    entry.set(connectionId, { uri: existing?.uri ?? uri, writer });
    let uris = this.byKey.get(connectionId);
    if (uris === undefined) {
      uris = new Set();
      this.byKey.set(connectionId, uris);
    }
    uris.add(canonical);
  }

  /** The unsubscribe path; prunes the uri's entry once its last subscriber leaves. */
  drop(connectionId: string, uri: string): void {
    const canonical = this.canonicalize(uri);
    this.unlink(connectionId, canonical);
    const uris = this.byKey.get(connectionId);
    uris?.delete(canonical);
    if (uris?.size === 0) this.byKey.delete(connectionId);
  }

  /** Drops everything a (closed) connection holds: uri subscriptions, its channel, its listen streams. */
  removeConnection(connectionId: string): void {
    this.removeKey(connectionId);
    for (const key of this.owned.get(connectionId) ?? []) this.removeKey(key);
    this.owned.delete(connectionId);
  }

  /** A connection-level writer that receives broadcasts (a legacy session's list_changed). */
  attach(connectionId: string, writer: PushWriter): void {
    this.channels.set(connectionId, writer);
  }

  detach(connectionId: string): void {
    this.channels.delete(connectionId);
  }

  /** Registers a listen stream: its uris as subscriptions, and as a channel when it wants list_changed. */
  addListen(connectionId: string, stream: ListenStream): void {
    const key = listenKey(connectionId, stream);
    let keys = this.owned.get(connectionId);
    if (keys === undefined) {
      keys = new Set();
      this.owned.set(connectionId, keys);
    }
    keys.add(key);
    for (const uri of stream.filter.resourceSubscriptions ?? []) this.register(key, uri, stream);
    if (stream.listChangedKinds.length > 0 || (stream.filter.taskIds?.length ?? 0) > 0)
      this.channels.set(key, stream);
  }

  removeListen(connectionId: string, stream: ListenStream): void {
    const key = listenKey(connectionId, stream);
    this.removeKey(key);
    const keys = this.owned.get(connectionId);
    keys?.delete(key);
    if (keys?.size === 0) this.owned.delete(connectionId);
  }

  /**
   * One-shot: pushes `notifications/resources/updated` and consumes the uri's connection
   * subscriptions. A listen stream keeps its uris for as long as it is open: its client declared
   * them once and has no way to subscribe again on the same stream. Returns this registry's writers
   * written (a bus carries the update to the other members' writers too).
   */
  notifyUpdated(uri: string): number {
    this.bus?.publish({ kind: 'updated', uri, keep: false });
    return this.updatedLocal(uri);
  }

  private updatedLocal(uri: string): number {
    const canonical = this.canonicalize(uri);
    const entry = this.byUri.get(canonical);
    if (entry === undefined) return 0;
    const targets = new Map(entry);
    for (const key of targets.keys()) {
      if (isListenKey(key)) continue;
      this.unlink(key, canonical);
      const uris = this.byKey.get(key);
      uris?.delete(canonical);
      if (uris?.size === 0) this.byKey.delete(key);
    }
    return this.pushUpdated(targets);
  }

  /** Repeated: pushes `notifications/resources/updated` and keeps the entry. Returns writers written. */
  notifyUpdatedKeep(uri: string): number {
    this.bus?.publish({ kind: 'updated', uri, keep: true });
    return this.updatedKeepLocal(uri);
  }

  private updatedKeepLocal(uri: string): number {
    const entry = this.byUri.get(this.canonicalize(uri));
    if (entry === undefined) return 0;
    return this.pushUpdated(new Map(entry));
  }

  /** Writes a payload-free note once per distinct writer (uri subscribers and channels). */
  broadcastDistinct(message: JsonRpcNotification): number {
    this.bus?.publish({ kind: 'broadcast', message });
    return this.broadcastLocal(message);
  }

  private broadcastLocal(message: JsonRpcNotification): number {
    const targets = new Map<string, { key: string; writer: PushWriter }>();
    for (const entry of this.byUri.values()) {
      for (const [key, sub] of entry)
        if (!targets.has(sub.writer.id)) targets.set(sub.writer.id, { key, writer: sub.writer });
    }
    for (const [key, writer] of this.channels)
      if (!targets.has(writer.id)) targets.set(writer.id, { key, writer });
    let written = 0;
    for (const { key, writer } of targets.values()) if (this.deliver(key, writer, message)) written += 1;
    return written;
  }

  /**
   * A task's status notification: to the listen streams watching `taskId` and, for a 2025-11-25
   * task, to the legacy session `creator` (connection id) that created it. Nobody else.
   */
  notifyTask(taskId: string, message: JsonRpcNotification, creator?: string): number {
    this.bus?.publish({ kind: 'task', taskId, message, creator });
    return this.taskLocal(taskId, message, creator);
  }

  private taskLocal(taskId: string, message: JsonRpcNotification, creator: string | undefined): number {
    let written = 0;
    for (const [key, writer] of [...this.channels]) {
      const wanted = writer instanceof ListenStream ? writer.watchesTask(taskId) : key === creator;
      if (wanted && this.deliver(key, writer, message)) written += 1;
    }
    return written;
  }

  /** `notifications/<kind>/list_changed` to every distinct writer that takes it. */
  notifyListChanged(kind: ListChangedKind): number {
    return this.broadcastDistinct(notification(`notifications/${kind}/list_changed`));
  }

  /** Subscribers of a uri (any spelling). */
  subscriberCount(uri: string): number {
    return this.byUri.get(this.canonicalize(uri))?.size ?? 0;
  }

  /** Whether a connection holds a subscription to a uri (any spelling). */
  has(connectionId: string, uri: string): boolean {
    return this.byKey.get(connectionId)?.has(this.canonicalize(uri)) ?? false;
  }

  /** How many uris a connection is subscribed to (its listen streams excluded). */
  subscriptionCount(connectionId: string): number {
    return this.byKey.get(connectionId)?.size ?? 0;
  }

  /** Canonical uris a connection is subscribed to (its listen streams excluded). */
  subscriptionsOf(connectionId: string): string[] {
    return [...(this.byKey.get(connectionId) ?? [])];
  }

  /** Totals, for metrics and tests. */
  stats(): { uris: number; subscriptions: number; channels: number; listenStreams: number } {
    let subscriptions = 0;
    for (const entry of this.byUri.values()) subscriptions += entry.size;
    let listenStreams = 0;
    for (const keys of this.owned.values()) listenStreams += keys.size;
    return { uris: this.byUri.size, subscriptions, channels: this.channels.size, listenStreams };
  }

  /** Another member's event, applied to this registry's writers only (never republished). */
  private applyRemote(event: BusEvent): void {
    if (event.kind === 'updated') {
      if (event.keep) this.updatedKeepLocal(event.uri);
      else this.updatedLocal(event.uri);
    } else if (event.kind === 'broadcast') this.broadcastLocal(event.message);
    else this.taskLocal(event.taskId, event.message, event.creator);
  }

  private pushUpdated(entry: Map<string, Subscriber>): number {
    let written = 0;
    for (const [key, sub] of entry) {
      if (this.deliver(key, sub.writer, notification('notifications/resources/updated', { uri: sub.uri })))
        written += 1;
    }
    return written;
  }

  /** One write; a closed or failing writer is pruned, a writer that does not take the message is skipped. */
  private deliver(key: string, writer: PushWriter, message: JsonRpcMessage): boolean {
    if (writer.closed) {
      this.removeKey(key);
      return false;
    }
    if (writer.accepts !== undefined && !writer.accepts(message)) return false;
    let written: boolean;
    try {
      written = writer.write(message);
    } catch {
      return false; // a message that cannot be encoded is nobody's fault but the sender's: keep the writer
    }
    if (written) return true;
    this.removeKey(key);
    return false;
  }

  private unlink(key: string, canonical: string): void {
    const entry = this.byUri.get(canonical);
    if (entry === undefined) return;
    entry.delete(key);
    if (entry.size === 0) this.byUri.delete(canonical);
  }

  private removeKey(key: string): void {
    for (const canonical of this.byKey.get(key) ?? []) this.unlink(key, canonical);
    this.byKey.delete(key);
    this.channels.delete(key);
  }
}

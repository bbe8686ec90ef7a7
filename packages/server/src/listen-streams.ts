/** The modern `subscriptions/listen` streams open on one connection: open, acknowledge, end. */
import { type Implementation, modernResult, refuse, type ServerCapabilities } from '@agentd/lifecycle';
import { declaresTasksExtension, missingTasksExtension } from '@agentd/lifecycle/tasks';
import {
  type JsonObject,
  type JsonRpcRequest,
  type JsonRpcResponse,
  type RequestId,
  successResponse,
  WireError,
} from '@agentd/rpc-frame';
import { ListenStream, type PushWriter, type SubscriptionRegistry } from '@agentd/subscriptions';
import { deliversListenNotifications, honourListenFilter, parseListenFilter } from './listen-filter.js';
import { errorFields, type Logger } from './logger.js';

/** What listen streams need from their connection. */
interface ListenHost {
  readonly connectionId: string;
  readonly writer: PushWriter;
  readonly registry: SubscriptionRegistry;
  readonly serverInfo: Implementation;
  readonly logger: Logger;
  readonly maxSubscriptions: number;
  isClosed(): boolean;
  /** The handler's gate, given the canonical uri; false when there is no gate. */
  canSubscribe(uri: string): Promise<boolean>;
  /** The handler's task gate (tasks extension): may this peer watch the task? */
  canWatchTask?(taskId: string): Promise<boolean>;
}

interface OpenListen {
  readonly stream: ListenStream;
  readonly finish: (response: JsonRpcResponse | undefined) => void;
}

export class ListenStreams {
  private readonly streams = new Map<RequestId, OpenListen>();
  /** Listens still deciding their filter (the subscribe gate may be async): a cancel must find them too. */
  private readonly opening = new Map<RequestId, AbortController>();

  constructor(private readonly host: ListenHost) {}

  get size(): number {
    return this.streams.size;
  }

  has(key: RequestId): boolean {
    return this.streams.has(key) || this.opening.has(key);
  }

  /**
   * Acknowledges the honoured subset, registers the stream, and resolves when it ends: with its
   * final result (client cancel, graceful close) or undefined (abort, transport drop).
   */
  async open(
    request: JsonRpcRequest,
    caps: ServerCapabilities,
    /** The client capabilities of the request's checked `_meta` (lifecycle's `ModernMeta`). */
    clientCapabilities: JsonObject,
    signal?: AbortSignal,
  ): Promise<JsonRpcResponse | undefined> {
    if (!deliversListenNotifications(caps)) {
      throw refuse.methodNotFound('subscriptions/listen', 'this server delivers no notifications');
    }
    const requested = parseListenFilter(request.params);
    if (
      (requested.resourceSubscriptions?.length ?? 0) > this.host.maxSubscriptions ||
      (requested.taskIds?.length ?? 0) > this.host.maxSubscriptions
    ) {
      throw refuse.subscriptionLimit(this.host.maxSubscriptions);
    }
    if (requested.taskIds !== undefined && !declaresTasksExtension(clientCapabilities)) {
      throw missingTasksExtension();
    }
    const key = request.id;
    const cancelled = new AbortController();
    this.opening.set(key, cancelled);
    let filter: Awaited<ReturnType<typeof honourListenFilter>>;
    try {
      // A cancel or close does not wait for a gate that hangs: the listen is simply never opened.
      const decided = await Promise.race([
        honourListenFilter(
          requested,
          caps,
          (uri) => this.admits(uri),
          (taskId) => this.watches(taskId),
        ),
        new Promise<undefined>((resolve) =>
          cancelled.signal.addEventListener('abort', () => resolve(undefined), { once: true }),
        ),
      ]);
      if (decided === undefined) return undefined;
      filter = decided;
    } finally {
      this.opening.delete(key);
    }
    if (cancelled.signal.aborted || signal?.aborted === true || this.host.isClosed()) return undefined;
    const stream = new ListenStream({
      subscriptionId: request.id,
      filter,
      target: this.host.writer,
      canonicalize: this.host.registry.canonicalize,
    });
    const done = new Promise<JsonRpcResponse | undefined>((resolve) => {
      this.streams.set(key, { stream, finish: resolve });
    });
    // The ack is the stream's first message; nothing can be pushed before it is registered.
    stream.acknowledge();
    this.host.registry.addListen(this.host.connectionId, stream);
    signal?.addEventListener('abort', () => this.end(key, false), { once: true });
    return done;
  }

  /** Ends one stream: graceful resolves its final result, otherwise undefined (never answered). */
  end(key: RequestId, graceful: boolean): void {
    // Not acknowledged yet: it will never open, and is never answered.
    this.opening.get(key)?.abort();
    const open = this.streams.get(key);
    if (open === undefined) return;
    this.streams.delete(key);
    this.host.registry.removeListen(this.host.connectionId, open.stream);
    open.stream.close();
    if (!graceful) {
      open.finish(undefined);
      return;
    }
    const final = open.stream.finalResult();
    open.finish(successResponse(final.id, modernResult(final.result, this.host.serverInfo)));
  }

  endAll(graceful: boolean): void {
    for (const opening of this.opening.values()) opening.abort();
    if (this.streams.size === 0) return;
    for (const key of [...this.streams.keys()]) this.end(key, graceful);
  }

  private async watches(taskId: string): Promise<boolean> {
    try {
      return (await this.host.canWatchTask?.(taskId)) === true;
    } catch (thrown) {
      this.host.logger.error('handler.canWatchTask threw', {
        connectionId: this.host.connectionId,
        ...errorFields(thrown),
      });
      return false;
    }
  }

  /** A refused uri is left out of the honoured subset; a gate that crashed is worth a log line. */
  private async admits(uri: string): Promise<boolean> {
    try {
      return await this.host.canSubscribe(uri);
    } catch (thrown) {
      if (!(thrown instanceof WireError)) {
        this.host.logger.error('handler.canSubscribe threw', {
          connectionId: this.host.connectionId,
          uri,
          ...errorFields(thrown),
        });
      }
      return false;
    }
  }
}

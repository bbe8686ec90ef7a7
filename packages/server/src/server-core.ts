/** createServerCore: the engine every transport shares (lifecycle, routing, subscriptions, shutdown). */
import type { LifecycleOptions, ServerCapabilities } from '@agentd/lifecycle';
import { resolveLifecycle } from '@agentd/lifecycle';
import type { JsonRpcNotification } from '@agentd/rpc-frame';
import { type PushWriter, SubscriptionRegistry } from '@agentd/subscriptions';
import { Connection } from './core-connection.js';
import type { CoreConnection, CoreHost, ServerCore, ServerCoreOptions } from './core-types.js';
import type { Handler, Implementation, Peer } from './handler.js';
import { DEFAULT_MAX_BUFFERED_INPUT_BYTES, InputBudget } from './input-budget.js';
import { serverError } from './local-errors.js';
import { errorFields, type Logger, stderrLogger } from './logger.js';
import type { WireProfile } from './wire-profile.js';

const DEFAULT_MAX_IN_FLIGHT = 32;
const DEFAULT_CLIENT_REQUEST_TIMEOUT_MS = 300_000;
const DEFAULT_MAX_SUBSCRIPTIONS = 4_096;

export function createServerCore(options: ServerCoreOptions): ServerCore {
  return new Core(options);
}

class Core implements ServerCore, CoreHost {
  readonly handler: Handler;
  readonly serverInfo: Implementation;
  readonly registry: SubscriptionRegistry;
  readonly lifecycleOptions: LifecycleOptions;
  readonly logger: Logger;
  readonly maxInFlight: number;
  readonly clientRequestTimeoutMs: number;
  readonly maxSubscriptions: number;
  readonly inputBudget: InputBudget;
  readonly profile: WireProfile | undefined;
  private readonly connections = new Map<string, Connection>();
  /** Tells this core's ids from another's (replicas sharing a task store keep creator ids apart). */
  private readonly idTag = globalThis.crypto.randomUUID().slice(0, 6);
  /** `<transport>-<tag>-` per transport, built once: an id is then one short concatenation. */
  private readonly idPrefixes = new Map<string, string>();
  private minted = 0;
  private isClosing = false;
  private declaredCapabilities: ServerCapabilities | undefined;
  private adjustedCapabilities: ServerCapabilities | undefined;

  constructor(options: ServerCoreOptions) {
    this.handler = options.handler;
    this.serverInfo = options.serverInfo;
    this.registry = options.registry ?? new SubscriptionRegistry();
    this.lifecycleOptions = options.lifecycle ?? {};
    // Fail at construction, not on the first request, when the versions are misconfigured.
    resolveLifecycle(this.lifecycleOptions);
    this.logger = options.logger ?? stderrLogger();
    this.maxInFlight = positiveInteger(
      options.maxInFlightPerConnection ?? DEFAULT_MAX_IN_FLIGHT,
      'maxInFlightPerConnection',
    );
    this.maxSubscriptions = positiveInteger(
      options.maxSubscriptionsPerConnection ?? DEFAULT_MAX_SUBSCRIPTIONS,
      'maxSubscriptionsPerConnection',
    );
    this.clientRequestTimeoutMs = positiveInteger(
      options.clientRequestTimeoutMs ?? DEFAULT_CLIENT_REQUEST_TIMEOUT_MS,
      'clientRequestTimeoutMs',
    );
    this.profile = options.profile;
    this.inputBudget = new InputBudget(options.maxBufferedInputBytes ?? DEFAULT_MAX_BUFFERED_INPUT_BYTES);
  }

  get closing(): boolean {
    return this.isClosing;
  }

  get maxInFlightPerConnection(): number {
    return this.maxInFlight;
  }

  get connectionCount(): number {
    return this.connections.size;
  }

  supportedVersions(): readonly string[] {
    return resolveLifecycle(this.lifecycleOptions).supported;
  }

  capabilities(): ServerCapabilities {
    const declared = this.handler.capabilities();
    // A frozen declaration cannot change behind our back: its adjusted copy is reused.
    if (declared === this.declaredCapabilities && this.adjustedCapabilities !== undefined)
      return this.adjustedCapabilities;
    const caps = this.adjustCapabilities(declared);
    if (Object.isFrozen(declared)) {
      this.declaredCapabilities = declared;
      this.adjustedCapabilities = Object.freeze(caps);
    }
    return caps;
  }

  private adjustCapabilities(declared: ServerCapabilities): ServerCapabilities {
    const caps: ServerCapabilities = { ...declared };
    if (declared.resources !== undefined) {
      const resources = { ...declared.resources };
      // The core can only deliver subscriptions it is allowed to gate.
      if (this.handler.canSubscribe === undefined) delete resources.subscribe;
      caps.resources = resources;
    }
    return caps;
  }

  mintConnectionId(transport: string): string {
    let prefix = this.idPrefixes.get(transport);
    if (prefix === undefined) {
      prefix = `${transport}-${this.idTag}-`;
      // Transports are a handful of names; the bound only guards against an embedder inventing many.
      if (this.idPrefixes.size < 64) this.idPrefixes.set(transport, prefix);
    }
    let id: string;
    // An embedder may have chosen an id of this shape itself: skip it rather than collide.
    do id = prefix + (++this.minted).toString(36);
    while (this.connections.has(id));
    return id;
  }

  openConnection(peer: Peer, writer: PushWriter): CoreConnection {
    if (this.connections.has(peer.connectionId)) {
      throw serverError('duplicate_connection', `connection id ${peer.connectionId} is already open`);
    }
    const connection = new Connection(peer, writer, this);
    this.connections.set(peer.connectionId, connection);
    this.logger.debug('connection opened', {
      connectionId: peer.connectionId,
      origin: peer.origin,
      transport: peer.transport,
    });
    try {
      this.handler.onConnect?.(peer);
    } catch (thrown) {
      this.logger.error('handler.onConnect threw', {
        connectionId: peer.connectionId,
        ...errorFields(thrown),
      });
    }
    return connection;
  }

  forget(connection: CoreConnection): void {
    if (this.connections.get(connection.peer.connectionId) === connection) {
      this.connections.delete(connection.peer.connectionId);
    }
  }

  notifyResourceUpdated(uri: string, options: { keep?: boolean } = {}): number {
    return options.keep === true ? this.registry.notifyUpdatedKeep(uri) : this.registry.notifyUpdated(uri);
  }

  notifyTaskStatus(taskId: string, message: JsonRpcNotification, creatorConnectionId?: string): number {
    return this.registry.notifyTask(taskId, message, creatorConnectionId);
  }

  notifyListChanged(kind: 'tools' | 'prompts' | 'resources'): number {
    if (this.capabilities()[kind]?.listChanged !== true) return 0;
    return this.registry.notifyListChanged(kind);
  }

  async close(): Promise<void> {
    this.isClosing = true;
    const open = [...this.connections.values()];
    for (const connection of open) connection.shutdown();
    // In-flight answers resolve at once; give transports a turn to write them.
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}

function positiveInteger(value: number, name: string): number {
  if (!Number.isSafeInteger(value) || value <= 0) {
    throw serverError('invalid_options', `${name} must be a positive integer, got ${value}`);
  }
  return value;
}

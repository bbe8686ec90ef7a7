/**
 * This replica's part in the fleet: it mirrors its supervisor's runs into Redis, answers for
 * runs of other replicas from there, routes cancels to the owner and keeps its lease.
 */
import { hostname } from 'node:os';
import { type JsonObject, LocalError, type Logger } from '@agentd/rpc-frame';
import type { TaskRecord, TaskStore } from '@agentd/tasks';
import type { ClusterConfig } from '../config/cluster-config.js';
import type { RunStore, StoredRecord } from '../history/history-types.js';
import type { AgentdErrorCode } from '../local-errors.js';
import type { TaskRef } from '../self-mcp/operation-spec.js';
import {
  localStatus,
  type RunHistory,
  type RunIndex,
  storedStatus,
  storeHistory,
  unknownHandle,
} from '../self-mcp/run-index.js';
import type { SubagentStatus, Supervisor } from '../supervisor/index.js';
import { type ClusterKeys, clusterKeys } from './cluster-keys.js';
import { FleetMembership, type InstanceInfo } from './fleet-membership.js';
import type { FleetRedis } from './fleet-redis.js';
import { SharedRunStore } from './run-store.js';
import { type RunChange, sharedStatus } from './shared-run.js';
import { WriteQueue } from './write-queue.js';

export interface ClusterNodeOptions {
  config: ClusterConfig;
  /** This replica's fleet name (the link's: the run store records runs under it too). */
  instanceId: string;
  /** The fleet's run history: answers for runs whose shared record expired, after any restart. */
  history?: RunStore;
  link: FleetRedis;
  supervisor: Supervisor;
  logger: Logger;
  version: string;
  /** Addresses this replica serves (shown to operators in the fleet view). */
  listeners: () => string[];
  /**
   * This replica's sweep marked a dead replica's run lost. The subscription registry's event bus
   * carries every replica's own notifications to the others; this is the one change no owner
   * notifies, so the sweeper does (once; the bus takes it everywhere).
   */
  onLost: (change: RunChange) => void;
  /** The fleet's shared task store (lost runs' spawn tasks are failed in it). */
  tasks?: TaskStore;
  /** This replica's sweep failed a lost run's spawn task: the one status change no owner notifies. */
  onTaskFailed?: (record: TaskRecord) => void;
}

/** How long a cancel routed to another replica waits for that run to end before answering. */
const REMOTE_CANCEL_WAIT_MS = 10_000;
/** Live output (plain-mode tail) is re-published at most this often per run. */
const TAIL_REFRESH_MS = 250;

/**
 * `<instanceId>-`, as `Mcp-Session-Id` prefix of this replica's legacy sessions (a balancer maps
 * `~^<instanceId>-` to the replica). Characters a session id cannot carry become `_`.
 */
export function sessionIdPrefix(instanceId: string): string {
  return `${instanceId.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 31)}-`;
}

export class ClusterNode implements RunIndex {
  readonly instanceId: string;
  readonly history?: RunHistory;
  readonly #o: ClusterNodeOptions;
  readonly #keys: ClusterKeys;
  readonly #store: SharedRunStore;
  readonly #membership: FleetMembership;
  readonly #writes: WriteQueue;
  readonly #tailTimers = new Map<string, NodeJS.Timeout>();
  #closed = false;

  constructor(options: ClusterNodeOptions) {
    this.#o = options;
    this.instanceId = options.instanceId;
    if (options.history !== undefined) this.history = this.#remoteHistory(storeHistory(options.history));
    const instanceId = this.instanceId;
    this.#keys = clusterKeys(options.config.keyPrefix);
    this.#store = new SharedRunStore(options.link, this.#keys, options.config.recordTtlMs);
    const info: InstanceInfo = {
      id: instanceId,
      pid: process.pid,
      host: hostname(),
      version: options.version,
      startedAt: new Date().toISOString(),
      // Listeners are bound after the node joins: each lease renewal re-registers the current ones.
      get listeners() {
        return options.listeners();
      },
    };
    this.#membership = new FleetMembership({
      redis: options.link,
      keys: this.#keys,
      store: this.#store,
      info,
      leaseTtlMs: options.config.leaseTtlMs,
      logger: options.logger,
      onLost: (change) => options.onLost(change),
      ...(options.tasks === undefined ? {} : { tasks: options.tasks }),
      ...(options.onTaskFailed === undefined ? {} : { onTaskFailed: options.onTaskFailed }),
    });
    this.#writes = new WriteQueue(options.logger);
  }

  /** Joins the fleet (lease, cancel channel) and starts mirroring this replica's runs. */
  async start(): Promise<void> {
    const { logger, supervisor, link } = this.#o;
    await link.subscribe(this.#keys.cancelChannel(this.instanceId), (message) => this.#onCancel(message));
    link.onReady(() => {
      // Back after an outage: what changed meanwhile was not written; write it all again.
      if (!this.#closed) this.#resync();
    });
    await this.#membership.start();
    supervisor.on('status', (status) => this.#publish(status));
    supervisor.on('turn', (handle) => this.#publishCurrent(handle));
    supervisor.on('event', (handle) => this.#scheduleTail(handle));
    logger.info('joined the fleet', {
      component: 'cluster',
      instance: this.instanceId,
      leaseTtlMs: this.#o.config.leaseTtlMs,
    });
  }

  // ---- mirroring this replica's runs ----

  #publish(status: SubagentStatus): void {
    if (this.#closed) return;
    const shared = sharedStatus(status, this.instanceId);
    if (status.terminal) this.#clearTail(status.handle);
    this.#writes.enqueue(status.handle, () => this.#store.write(shared), status.runId);
  }

  #publishCurrent(handle: string): void {
    try {
      this.#publish(this.#o.supervisor.status(handle));
    } catch {
      // evicted meanwhile: nothing left to publish
    }
  }

  /** Plain runs' live tail changes with each line: re-published, at most every TAIL_REFRESH_MS. */
  #scheduleTail(handle: string): void {
    if (this.#tailTimers.has(handle) || this.#closed) return;
    const timer = setTimeout(() => {
      this.#tailTimers.delete(handle);
      this.#publishCurrent(handle);
    }, TAIL_REFRESH_MS);
    timer.unref();
    this.#tailTimers.set(handle, timer);
  }

  #clearTail(handle: string): void {
    clearTimeout(this.#tailTimers.get(handle));
    this.#tailTimers.delete(handle);
  }

  #resync(): void {
    this.#o.logger.info('re-publishing local runs after the Redis outage', { component: 'cluster' });
    void this.#membership.renewOrWarn();
    for (const status of this.#o.supervisor.list()) this.#publish(status);
  }

  #onCancel(message: string): void {
    const channel = this.#keys.cancelChannel(this.instanceId);
    let request: { handle?: unknown; reason?: unknown };
    try {
      request = JSON.parse(message) as typeof request;
    } catch {
      this.#o.link.dropMalformed(channel, 'not JSON');
      return;
    }
    if (typeof request?.handle !== 'string') {
      this.#o.link.dropMalformed(channel, 'not {handle, reason?}');
      return;
    }
    const reason = typeof request.reason === 'string' ? request.reason : 'cancelled through another replica';
    this.#o.supervisor.cancel(request.handle, reason).catch((error: unknown) => {
      // The handle is a capability: it stays out of the log (the error says what went wrong).
      this.#o.logger.debug('routed cancel found no run', { component: 'cluster', error: String(error) });
    });
  }

  // ---- RunIndex ----

  async status(handle: string): Promise<JsonObject> {
    const status = await this.find(handle);
    if (status === undefined) throw unknownHandle();
    return status;
  }

  async find(handle: string): Promise<JsonObject | undefined> {
    const local = localStatus(this.#o.supervisor, handle);
    if (local !== undefined) return { ...local, instance: this.instanceId };
    return (
      (await this.#remote(() => this.#store.get(handle))) ?? this.#stored(this.history?.byHandle(handle))
    );
  }

  async findByRunId(runId: string): Promise<JsonObject | undefined> {
    const local = this.#o.supervisor.statusByRunId(runId);
    if (local !== undefined) return sharedStatus(local, this.instanceId);
    return (
      (await this.#remote(() => this.#store.getByRunId(runId))) ?? this.#stored(this.history?.byRunId(runId))
    );
  }

  /** A run of the history (its shared record expired, or a restart of the fleet outlived it). */
  async #stored(read: Promise<StoredRecord | undefined> | undefined): Promise<JsonObject | undefined> {
    const record = await read;
    return record === undefined ? undefined : storedStatus(record);
  }

  /** The history's reads, refused plainly (not as an internal error) while Redis is unreachable. */
  #remoteHistory(history: RunHistory): RunHistory {
    return {
      byHandle: (handle) => this.#remote(() => history.byHandle(handle)),
      byRunId: (runId) => this.#remote(() => history.byRunId(runId)),
      events: (runId, query) => this.#remote(() => history.events(runId, query)),
      list: async (query) => {
        try {
          return await history.list(query);
        } catch (error) {
          // A cursor that is not one: the caller's mistake, said as such.
          if (error instanceof LocalError) throw error;
          return this.#remote(() => Promise.reject(error));
        }
      },
    };
  }

  async cancel(handle: string, reason: string): Promise<JsonObject> {
    if (localStatus(this.#o.supervisor, handle) !== undefined) {
      const status = await this.#o.supervisor.cancel(handle, reason);
      await this.settled(handle);
      return sharedStatus(status, this.instanceId);
    }
    const shared = await this.#remote(() => this.#store.get(handle));
    if (shared === undefined) {
      // Only in the history: it ended (or was lost) long ago; nothing is left to cancel.
      return (await this.#stored(this.history?.byHandle(handle))) ?? throwUnknown();
    }
    const record = shared;
    if (record.terminal) return record;
    const receivers = await this.#o.link.publish(
      this.#keys.cancelChannel(record.instance),
      JSON.stringify({ handle, reason }),
    );
    // Nobody listens for that instance: it is gone; once its lease lapsed the sweep marks the run lost.
    if (receivers === 0) await this.#membership.sweep();
    return this.#waitTerminal(handle, REMOTE_CANCEL_WAIT_MS);
  }

  async #waitTerminal(handle: string, timeoutMs: number): Promise<JsonObject> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const record = (await this.#store.get(handle)) ?? throwUnknown();
      if (record.terminal || Date.now() >= deadline) return record;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  bindTask(handle: string, task: TaskRef): void {
    if (this.#closed) return;
    // Behind the run's own writes: the binding lands once the run is registered.
    const runId = localStatus(this.#o.supervisor, handle)?.runId;
    this.#writes.enqueue(
      handle,
      () => this.#store.bindTask(handle, task),
      typeof runId === 'string' ? runId : undefined,
    );
  }

  async settled(handle: string): Promise<void> {
    await this.#writes.settled(handle);
    // The history too: a reader on another replica told the run ended finds its whole log.
    await this.#o.history?.flush();
  }

  async fleet(): Promise<JsonObject> {
    const instances = await this.#remote(() => this.#membership.fleet());
    return { instance: this.instanceId, instances: JSON.parse(JSON.stringify(instances)) as JsonObject[] };
  }

  /** A Redis read; while Redis is unreachable the caller gets a clear refusal, not a hang. */
  async #remote<T>(read: () => Promise<T>): Promise<T> {
    try {
      return await read();
    } catch (error) {
      this.#o.logger.warn('fleet lookup failed', { component: 'cluster', error: String(error) });
      throw new LocalError<AgentdErrorCode>(
        'cluster_unavailable',
        'the fleet store (Redis) is unreachable; try again shortly',
      );
    }
  }

  /** Lease renewals that failed since this replica joined (for metrics). */
  get failedLeaseRenewals(): number {
    return this.#membership.failedRenewals;
  }

  /** Flushes pending writes and leaves the fleet (the link is closed by its owner). */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const timer of this.#tailTimers.values()) clearTimeout(timer);
    this.#tailTimers.clear();
    await this.#writes.drain();
    await this.#membership.stop();
  }
}

function throwUnknown(): never {
  throw unknownHandle();
}

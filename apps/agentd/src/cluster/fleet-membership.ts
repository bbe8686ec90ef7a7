/**
 * Liveness of the fleet: each instance holds a lease key it renews by heartbeat; survivors sweep
 * instances whose lease lapsed and mark their unfinished runs `lost`, each run exactly once, and
 * fail the spawn tasks of those runs.
 */

import type { JsonObject, Logger } from '@agentd/rpc-frame';
import type { TaskRecord, TaskStore } from '@agentd/tasks';
import type { ClusterKeys } from './cluster-keys.js';
import { type FleetRedis, strings, text } from './fleet-redis.js';
import { lostTaskChange } from './lost-task.js';
import type { SharedRunStore } from './run-store.js';
import { changeOf, lostStatus, type RunChange, type SharedStatus } from './shared-run.js';

/** What an instance tells the fleet about itself (shown in the inventory). */
export interface InstanceInfo {
  id: string;
  pid: number;
  host: string;
  version: string;
  startedAt: string;
  /** Addresses it serves (so an operator can reach that replica directly). */
  listeners: string[];
}

interface FleetInstance extends InstanceInfo {
  alive: boolean;
  self: boolean;
  /** Handles of its unfinished runs. */
  runs: string[];
}

interface FleetMembershipOptions {
  redis: FleetRedis;
  keys: ClusterKeys;
  store: SharedRunStore;
  info: InstanceInfo;
  leaseTtlMs: number;
  logger: Logger;
  /** Each run this member's sweep marked lost. */
  onLost?: (change: RunChange) => void;
  /** The fleet's shared task store: a lost run's spawn task is failed in it. */
  tasks?: TaskStore;
  /** Each spawn task this member's sweep failed (after the store holds it). */
  onTaskFailed?: (record: TaskRecord) => void;
}

export class FleetMembership {
  readonly #o: FleetMembershipOptions;
  #heartbeat: NodeJS.Timeout | undefined;
  #sweeper: NodeJS.Timeout | undefined;
  #sweeping = false;
  #renewedAt: number | undefined;
  #failedRenewals = 0;
  /** Failures since the last renewal that worked. */
  #failingSince = 0;
  #closed = false;

  constructor(options: FleetMembershipOptions) {
    this.#o = options;
  }

  get id(): string {
    return this.#o.info.id;
  }

  /** Registers and starts renewing the lease (every third of the TTL) and sweeping (every half). */
  async start(): Promise<void> {
    await this.renew();
    const { leaseTtlMs } = this.#o;
    this.#heartbeat = setInterval(() => void this.#tick(), Math.max(100, Math.floor(leaseTtlMs / 3)));
    this.#heartbeat.unref();
    this.#sweeper = setInterval(() => void this.sweep(), Math.max(100, Math.floor(leaseTtlMs / 2)));
    this.#sweeper.unref();
  }

  /** Refreshes the lease and the registration (re-registers after a sweep declared us dead). */
  async renew(): Promise<void> {
    const { redis, keys, info, leaseTtlMs } = this.#o;
    const lapsed = this.#renewedAt !== undefined && Date.now() - this.#renewedAt > leaseTtlMs;
    await redis.command(['SET', keys.lease(info.id), new Date().toISOString(), 'PX', leaseTtlMs]);
    await redis.command(['HSET', keys.instances, info.id, JSON.stringify(info)]);
    if (lapsed) {
      // A stall or a Redis outage longer than the lease: survivors may have marked our runs lost.
      this.#o.logger.warn('lease had lapsed; rejoined the fleet (runs already marked lost stay lost)', {
        instance: info.id,
      });
    }
    this.#renewedAt = Date.now();
  }

  /** Lease renewals that failed since start (for metrics). */
  get failedRenewals(): number {
    return this.#failedRenewals;
  }

  /**
   * `renew()` that never rejects: the heartbeat's and a reconnect's. A failure is what gets this
   * replica's runs marked lost by the others once the lease lapses, so each one is counted and
   * logged at warn with how long the lease has left.
   */
  async renewOrWarn(): Promise<void> {
    if (this.#closed) return;
    try {
      await this.renew();
    } catch (error) {
      this.#failedRenewals++;
      this.#failingSince++;
      const { leaseTtlMs, info } = this.#o;
      const left = this.#renewedAt === undefined ? 0 : this.#renewedAt + leaseTtlMs - Date.now();
      this.#o.logger.warn('lease renewal failed; once the lease lapses other replicas mark our runs lost', {
        component: 'cluster',
        instance: info.id,
        consecutiveFailures: this.#failingSince,
        leaseLeftMs: Math.max(0, left),
        error: String(error),
      });
      return;
    }
    if (this.#failingSince > 0) {
      this.#o.logger.info('lease renewed again', {
        component: 'cluster',
        instance: this.#o.info.id,
        afterFailures: this.#failingSince,
      });
      this.#failingSince = 0;
    }
  }

  async #tick(): Promise<void> {
    await this.renewOrWarn();
  }

  /**
   * Marks the unfinished runs of every instance whose lease lapsed as lost. One survivor claims a
   * dead instance (SET NX with the lease TTL, so a sweeper that dies mid-way is replaced); each
   * run changes once because terminal records are final. Returns how many runs it marked.
   */
  async sweep(): Promise<number> {
    if (this.#sweeping || this.#closed) return 0;
    this.#sweeping = true;
    let marked = 0;
    try {
      const { redis, keys, store, info, leaseTtlMs } = this.#o;
      const registered = strings(await redis.command(['HKEYS', keys.instances]));
      for (const instance of registered) {
        if (instance === info.id) continue;
        if ((await redis.command(['EXISTS', keys.lease(instance)])) === 1) continue;
        const claimed = await redis.command(['SET', keys.sweep(instance), info.id, 'NX', 'PX', leaseTtlMs]);
        if (claimed === null) continue;
        let lost = 0;
        const now = new Date();
        for (const run of await store.liveOf(instance)) {
          if (run.terminal) continue;
          const record = lostStatus(run, now);
          // The task before the run: a sweeper that dies in between leaves the run live, so the
          // next sweep does both again (the store refuses to change a task already terminal).
          const failed = await this.#failTask(record);
          if (!(await store.write(record))) continue;
          lost++;
          this.#o.onLost?.(changeOf(record));
          if (failed !== undefined) this.#o.onTaskFailed?.(failed);
        }
        await redis.command(['HDEL', keys.instances, instance]);
        await redis.command(['DEL', keys.live(instance)]);
        marked += lost;
        this.#o.logger.warn('instance lease expired; its unfinished runs are lost', { instance, lost });
      }
    } catch (error) {
      this.#o.logger.debug('lease sweep failed', { error: String(error) });
    } finally {
      this.#sweeping = false;
    }
    return marked;
  }

  /** Fails the spawn task of a lost run, if it has one; the failed record when this call failed it. */
  async #failTask(lost: SharedStatus): Promise<TaskRecord | undefined> {
    const { tasks, store } = this.#o;
    if (tasks === undefined) return undefined;
    const task = await store.taskOf(lost.handle);
    if (task === undefined) return undefined;
    const change = lostTaskChange(lost);
    const record = await tasks.update(task.taskId, task.owner, change);
    // Already terminal (it ended, or was cancelled, before the owner died): left as it was.
    return record?.status === 'failed' && record.statusMessage === change.statusMessage ? record : undefined;
  }

  /** Every registered instance with its liveness and unfinished runs. */
  async fleet(): Promise<FleetInstance[]> {
    const { redis, keys, info } = this.#o;
    const out: FleetInstance[] = [];
    for (const id of strings(await redis.command(['HKEYS', keys.instances]))) {
      const parsed = parseInfo(text(await redis.command(['HGET', keys.instances, id])) ?? '', id);
      const alive = (await redis.command(['EXISTS', keys.lease(id)])) === 1;
      const runs = strings(await redis.command(['SMEMBERS', keys.live(id)])).sort();
      out.push({ ...parsed, alive, self: id === info.id, runs });
    }
    return out.sort((a, b) => a.id.localeCompare(b.id));
  }

  /**
   * Leaves the fleet: the lease goes at once. The registration goes too unless runs of ours are
   * still unfinished in Redis (a write that failed): then a survivor's sweep marks them lost.
   */
  async stop(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#heartbeat);
    clearInterval(this.#sweeper);
    const { redis, keys, info } = this.#o;
    try {
      await redis.command(['DEL', keys.lease(info.id)]);
      if ((await redis.command(['SCARD', keys.live(info.id)])) === 0)
        await redis.command(['HDEL', keys.instances, info.id]);
    } catch (error) {
      this.#o.logger.debug('leaving the fleet failed', { error: String(error) });
    }
  }
}

function parseInfo(json: string, id: string): InstanceInfo {
  try {
    const value = JSON.parse(json) as JsonObject;
    return {
      id,
      pid: typeof value.pid === 'number' ? value.pid : 0,
      host: typeof value.host === 'string' ? value.host : '',
      version: typeof value.version === 'string' ? value.version : '',
      startedAt: typeof value.startedAt === 'string' ? value.startedAt : '',
      listeners: Array.isArray(value.listeners) ? value.listeners.map(String) : [],
    };
  } catch {
    return { id, pid: 0, host: '', version: '', startedAt: '', listeners: [] };
  }
}

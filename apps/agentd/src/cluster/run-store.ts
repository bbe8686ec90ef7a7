/** Shared run records in Redis: written by the owner, read by every replica, final once terminal. */
import type { TaskRef } from '../self-mcp/operation-spec.js';
import type { ClusterKeys } from './cluster-keys.js';
import { type FleetRedis, strings, text } from './fleet-redis.js';
import type { SharedStatus } from './shared-run.js';

/**
 * One atomic write: a terminal record never changes again (so a late write from a replica that
 * was declared dead cannot resurrect a run marked lost), and the run id index and the owner's set
 * of unfinished runs follow the record. (Notifications travel on the event bus, not here.)
 */
const WRITE_RUN = `
if redis.call('HGET', KEYS[1], 'terminal') == '1' then return 0 end
redis.call('HSET', KEYS[1], 'json', ARGV[1], 'terminal', ARGV[3], 'owner', ARGV[5], 'state', ARGV[6])
if ARGV[3] == '1' then
  redis.call('PEXPIRE', KEYS[1], ARGV[4])
  redis.call('SET', KEYS[2], ARGV[2], 'PX', ARGV[4])
  redis.call('SREM', KEYS[3], ARGV[2])
else
  redis.call('SET', KEYS[2], ARGV[2])
  redis.call('SADD', KEYS[3], ARGV[2])
end
return 1
`;

export class SharedRunStore {
  constructor(
    private readonly redis: FleetRedis,
    private readonly keys: ClusterKeys,
    private readonly recordTtlMs: number,
  ) {}

  /** Writes the record unless it is already terminal; true when it was written. */
  async write(status: SharedStatus): Promise<boolean> {
    const written = await this.redis.command([
      'EVAL',
      WRITE_RUN,
      3,
      this.keys.run(status.handle),
      this.keys.runId(status.runId),
      this.keys.live(status.instance),
      JSON.stringify(status),
      status.handle,
      status.terminal ? '1' : '0',
      String(this.recordTtlMs),
      status.instance,
      status.state,
    ]);
    return written === 1;
  }

  async get(handle: string): Promise<SharedStatus | undefined> {
    const json = text(await this.redis.command(['HGET', this.keys.run(handle), 'json']));
    return json === undefined ? undefined : parseStatus(json);
  }

  async getByRunId(runId: string): Promise<SharedStatus | undefined> {
    const handle = text(await this.redis.command(['GET', this.keys.runId(runId)]));
    return handle === undefined ? undefined : this.get(handle);
  }

  /**
   * Records the task a run was spawned as, beside its status (not in it: the task's owner is
   * not for other readers of the status). Expires with the run's record.
   */
  async bindTask(handle: string, task: TaskRef): Promise<void> {
    await this.redis.command(['HSET', this.keys.run(handle), 'task', JSON.stringify(task)]);
  }

  async taskOf(handle: string): Promise<TaskRef | undefined> {
    const json = text(await this.redis.command(['HGET', this.keys.run(handle), 'task']));
    if (json === undefined) return undefined;
    try {
      const value = JSON.parse(json) as Partial<TaskRef>;
      return typeof value.taskId === 'string' && typeof value.owner === 'string'
        ? { taskId: value.taskId, owner: value.owner }
        : undefined;
    } catch {
      return undefined;
    }
  }

  /** The unfinished runs an instance has registered (what its death makes lost). */
  async liveOf(instance: string): Promise<SharedStatus[]> {
    const handles = strings(await this.redis.command(['SMEMBERS', this.keys.live(instance)]));
    const records = await Promise.all(handles.map((h) => this.get(h)));
    return records.filter((r): r is SharedStatus => r !== undefined);
  }
}

function parseStatus(json: string): SharedStatus | undefined {
  try {
    const value = JSON.parse(json) as SharedStatus;
    return typeof value === 'object' && value !== null && typeof value.handle === 'string'
      ? value
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Which queued `execute` starts next: fair share of CPU across principals, with a priority lane.
 *
 * Each principal has its own FIFO; the next execution comes from the principal that has used the
 * least CPU recently (what its executions used, decaying with a half-life, plus what its running
 * ones have used so far), among those under their running cap; ties go to the principal served
 * least recently, then to the earliest queued. A light caller therefore goes before every principal
 * that has just run a CPU hog, however many of them were queued first: it waits for the next worker
 * to free, not for their turns.
 *
 * A principal without a history (none of its executions started lately) is not taken to have used
 * nothing: it is charged half a typical execution (the recent mean CPU of one, or of those running
 * now if more). A principal costs a caller nothing to make (each connection is one), so "unknown"
 * must not outrank "known to be light": else every fresh principal of a CPU hog goes before the
 * light caller, which then waits for their turns after all. Half, not all: an unknown still goes
 * before the principals that have just run a typical execution.
 *
 * The priority lane (management callers) is always looked at first. Pure bookkeeping: the runner
 * decides whether a worker can take it.
 */
export interface Queued {
  readonly principal: string;
  readonly priority: boolean;
  /** Guest CPU ms it has used so far (0 before it starts); read while it runs and when it ends. */
  cpuSoFar?(): number;
}

export interface FairQueueOptions {
  maxRunningPerPrincipal: number;
  maxQueuedPerPrincipal: number;
  /** Charged CPU halves every this many ms (default 10 000): "recently" is a few of these. */
  usageHalfLifeMs?: number;
  /** Idle principals whose usage is remembered (default 10 000); past it the longest idle are forgotten. */
  maxRememberedPrincipals?: number;
  /** Milliseconds on a monotonic clock (default `performance.now`). */
  now?: () => number;
}

/** Charged CPU of one principal: `ms` as of time `at`, decaying from there. */
interface Usage {
  ms: number;
  at: number;
  /** When this principal last had an execution started (a tick), for ties; 0 = never. */
  served: number;
  /** When one of its executions last started or ended; undefined = never (no history). */
  seen?: number;
}

interface PrincipalState<T> {
  readonly queue: T[];
  readonly running: Set<T>;
  readonly usage: Usage;
}

interface Entry<T> {
  readonly item: T;
  /** Admission order, for ties between principals that have used the same. */
  readonly seq: number;
}

/** An idle principal charged less than this, and without a recent execution, is forgotten. */
const FORGET_BELOW_MS = 1;
/** How many half-lives an idle principal's history (that it ran, however lightly) is remembered. */
const HISTORY_HALF_LIVES = 4;

function cpuOf(item: Queued): number {
  const ms = item.cpuSoFar?.() ?? 0;
  return Number.isFinite(ms) && ms > 0 ? ms : 0;
}

export class FairQueue<T extends Queued> {
  /** Principals with executions queued or running. */
  readonly #active = new Map<string, PrincipalState<Entry<T>>>();
  /** Idle principals still remembered for their recent usage, in the order they went idle. */
  readonly #idle = new Map<string, Usage>();
  readonly #entries = new Map<T, Entry<T>>();
  readonly #maxRunning: number;
  readonly #maxQueued: number;
  readonly #halfLifeMs: number;
  readonly #maxRemembered: number;
  readonly #now: () => number;
  #lastSweep: number;
  /** Decayed CPU and count of the executions that ended, for the typical execution's cost. */
  #ended = { ms: 0, count: 0, at: 0 };
  #tick = 0;
  #seq = 0;
  #size = 0;

  constructor(options: FairQueueOptions) {
    this.#maxRunning = options.maxRunningPerPrincipal;
    this.#maxQueued = options.maxQueuedPerPrincipal;
    this.#halfLifeMs = Math.max(1, options.usageHalfLifeMs ?? 10_000);
    this.#maxRemembered = Math.max(0, Math.floor(options.maxRememberedPrincipals ?? 10_000));
    this.#now = options.now ?? (() => performance.now());
    this.#lastSweep = this.#now();
    this.#ended.at = this.#lastSweep;
  }

  /** Executions waiting, all principals together. */
  get size(): number {
    return this.#size;
  }

  /** Principals tracked at all (queued, running, or idle with recent usage): bounded. */
  get remembered(): number {
    return this.#active.size + this.#idle.size;
  }

  running(principal: string): number {
    return this.#active.get(principal)?.running.size ?? 0;
  }

  queued(principal: string): number {
    return this.#active.get(principal)?.queue.length ?? 0;
  }

  /** CPU ms this principal is ranked by: decayed charges (or half a typical execution without a history) plus its running ones so far. */
  usage(principal: string): number {
    const now = this.#now();
    const state = this.#active.get(principal);
    if (state !== undefined) return this.#current(state, now);
    const idle = this.#idle.get(principal);
    return idle === undefined ? 0 : this.#decayed(idle, now);
  }

  /** Queues `item`; false (nothing queued) when its principal already has its maximum waiting. */
  admit(item: T): boolean {
    const state = this.#state(item.principal);
    if (state.queue.length >= this.#maxQueued) {
      this.#forgetIfIdle(item.principal, state);
      return false;
    }
    const entry = { item, seq: ++this.#seq };
    state.queue.push(entry);
    this.#entries.set(item, entry);
    this.#size += 1;
    return true;
  }

  /** Takes a queued item out without starting it (it was aborted or timed out while waiting). */
  remove(item: T): boolean {
    const entry = this.#entries.get(item);
    const state = this.#active.get(item.principal);
    const index = entry === undefined || state === undefined ? -1 : state.queue.indexOf(entry);
    if (state === undefined || index < 0) return false;
    state.queue.splice(index, 1);
    this.#entries.delete(item);
    this.#size -= 1;
    this.#forgetIfIdle(item.principal, state);
    return true;
  }

  /**
   * The next item of a lane to start, not removed: the first of its principal's queue in that lane,
   * from the principal under its cap that has used the least CPU recently.
   */
  peek(priority: boolean): T | undefined {
    const now = this.#now();
    const unknown = this.#typical() / 2;
    let best: Entry<T> | undefined;
    let bestUsage = 0;
    let bestServed = 0;
    for (const state of this.#active.values()) {
      if (state.running.size >= this.#maxRunning) continue;
      const entry = state.queue.find((queued) => queued.item.priority === priority);
      if (entry === undefined) continue;
      const usage = this.#current(state, now, unknown);
      const served = state.usage.served;
      if (
        best === undefined ||
        usage < bestUsage ||
        (usage === bestUsage && (served < bestServed || (served === bestServed && entry.seq < best.seq)))
      ) {
        best = entry;
        bestUsage = usage;
        bestServed = served;
      }
    }
    return best?.item;
  }

  /** `item` (from peek) starts now: out of the queue, counted as running for its principal. */
  start(item: T): void {
    const state = this.#state(item.principal);
    const entry = this.#entries.get(item) ?? { item, seq: ++this.#seq };
    const index = state.queue.indexOf(entry);
    if (index >= 0) {
      state.queue.splice(index, 1);
      this.#size -= 1;
    }
    state.running.add(entry);
    this.#entries.set(item, entry);
    this.#tick += 1;
    state.usage.served = this.#tick;
    state.usage.seen = this.#now();
  }

  /** A started item ended: the CPU it used is charged to its principal. */
  finish(item: T): void {
    const entry = this.#entries.get(item);
    const state = this.#active.get(item.principal);
    if (entry === undefined || state === undefined || !state.running.delete(entry)) return;
    this.#entries.delete(item);
    const now = this.#now();
    const cpu = cpuOf(item);
    state.usage.ms = this.#decayed(state.usage, now) + cpu;
    state.usage.at = now;
    state.usage.seen = now;
    const scale = 2 ** (-(now - this.#ended.at) / this.#halfLifeMs);
    this.#ended = { ms: this.#ended.ms * scale + cpu, count: this.#ended.count * scale + 1, at: now };
    this.#forgetIfIdle(item.principal, state);
  }

  #decayed(usage: Usage, now: number): number {
    const elapsed = now - usage.at;
    return elapsed <= 0 ? usage.ms : usage.ms * 2 ** (-elapsed / this.#halfLifeMs);
  }

  /** Recent usage (or, without a history, `unknown`) plus what its running executions have used so far. */
  #current(state: PrincipalState<Entry<T>>, now: number, unknown = this.#typical() / 2): number {
    let total = state.usage.seen === undefined ? unknown : this.#decayed(state.usage, now);
    for (const entry of state.running) total += cpuOf(entry.item);
    return total;
  }

  /** CPU ms of a typical execution: the recent mean of those that ended, or of those running now if more. */
  #typical(): number {
    // CPU and count decay alike, so their ratio needs no decaying here: older executions weigh less.
    const ended = this.#ended.count > 0 ? this.#ended.ms / this.#ended.count : 0;
    let running = 0;
    let runningCount = 0;
    for (const state of this.#active.values()) {
      for (const entry of state.running) {
        running += cpuOf(entry.item);
        runningCount += 1;
      }
    }
    return Math.max(ended, runningCount > 0 ? running / runningCount : 0);
  }

  #state(principal: string): PrincipalState<Entry<T>> {
    let state = this.#active.get(principal);
    if (state === undefined) {
      // A returning principal brings its recent usage back; a new one has used nothing.
      const usage = this.#idle.get(principal) ?? { ms: 0, at: this.#now(), served: 0 };
      this.#idle.delete(principal);
      state = { queue: [], running: new Set(), usage };
      this.#active.set(principal, state);
    }
    return state;
  }

  /** Whether an idle principal is still worth remembering: usage not decayed away, or a recent history. */
  #remembers(usage: Usage, now: number): boolean {
    if (this.#decayed(usage, now) >= FORGET_BELOW_MS) return true;
    return usage.seen !== undefined && now - usage.seen < HISTORY_HALF_LIVES * this.#halfLifeMs;
  }

  /** An idle principal keeps only its usage and history, until both have decayed away (bounded memory). */
  #forgetIfIdle(principal: string, state: PrincipalState<Entry<T>>): void {
    if (state.running.size > 0 || state.queue.length > 0) return;
    this.#active.delete(principal);
    const now = this.#now();
    if (this.#remembers(state.usage, now)) this.#idle.set(principal, state.usage);
    this.#sweep(now);
  }

  /**
   * Forgets idle principals whose usage and history have decayed away (a full pass at most once per half-life,
   * so the cost per call stays constant), and the longest idle past `maxRememberedPrincipals`.
   */
  #sweep(now: number): void {
    if (now - this.#lastSweep >= this.#halfLifeMs) {
      this.#lastSweep = now;
      for (const [principal, usage] of this.#idle) {
        if (!this.#remembers(usage, now)) this.#idle.delete(principal);
      }
    }
    for (const principal of this.#idle.keys()) {
      if (this.#idle.size <= this.#maxRemembered) break;
      this.#idle.delete(principal);
    }
  }
}

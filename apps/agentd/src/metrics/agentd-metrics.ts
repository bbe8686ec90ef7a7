/**
 * agentd's Prometheus metrics (prom-client): runs by state, run durations, admission queue depth,
 * connections by transport, requests by method and outcome, Code Mode executions and limit hits,
 * and per agent what runs did (run-activity-metrics.ts).
 */
import type { ExecuteOutcome } from '@agentd/codemode';
import type { JsonObject, JsonRpcRequest } from '@agentd/rpc-frame';
import { WireError } from '@agentd/rpc-frame';
import type { Handler, Peer, RequestContext } from '@agentd/server';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { SubagentStatus } from '../supervisor/index.js';
import type { AgentEvent } from '../supervisor/types.js';
import { RunActivityMetrics } from './run-activity-metrics.js';

const STATES = ['starting', 'running', 'ready', 'succeeded', 'failed', 'cancelled', 'timed_out'] as const;

/** Methods a peer may send are unbounded; labels are not (an adversary must not blow up the series). */
const KNOWN_METHODS = new Set([
  'tools/list',
  'tools/call',
  'resources/list',
  'resources/templates/list',
  'resources/read',
  'resources/subscribe',
  'resources/unsubscribe',
  'prompts/list',
  'prompts/get',
  'completion/complete',
  'logging/setLevel',
]);

/** Sandbox limits an execution can run into (the rest are script errors or operational ends). */
const LIMIT_CODES = new Set([
  'cpu_deadline',
  'out_of_memory',
  'wall_clock',
  'too_many_calls',
  'result_too_large',
  'code_too_large',
  'busy',
]);

/** What a replica in a fleet reports (see src/cluster/). */
interface ClusterStats {
  /** Lease renewals that failed since joining: each brings the lapse that marks our runs lost closer. */
  readonly failedLeaseRenewals: number;
  /** Pub/sub messages dropped as malformed, by channel. */
  readonly malformedMessages: ReadonlyMap<string, number>;
}

export interface MetricsSources {
  runs: () => readonly SubagentStatus[];
  /** Code Mode's execution queue, when Code Mode is exposed. */
  codeMode: () => { queued: number; running: number } | undefined;
  /** When agentd runs in a fleet. */
  cluster?: () => ClusterStats | undefined;
}

/** A counter kept elsewhere, exported as it stands at each scrape. */
function setCounter(counter: Counter<string>, value: number, labels: Record<string, string> = {}): void {
  counter.reset();
  counter.inc(labels, value);
}

export class AgentdMetrics {
  readonly registry = new Registry();
  readonly #runDuration: Histogram<'agent' | 'state'>;
  readonly #runsEnded: Counter<'state'>;
  readonly #connections: Gauge<'transport'>;
  readonly #requests: Counter<'method' | 'outcome'>;
  readonly #executions: Counter<'outcome'>;
  readonly #limitHits: Counter<'limit'>;
  /** Runs already observed as ended: a terminal status is emitted again on later changes. */
  readonly #ended = new Set<string>();
  readonly #activity: RunActivityMetrics;

  constructor(sources: MetricsSources) {
    const registers = [this.registry];
    this.#activity = new RunActivityMetrics(this.registry);
    new Gauge({
      name: 'agentd_runs',
      help: 'Tracked subagent runs and warm sessions by current state.',
      labelNames: ['state'],
      registers,
      collect() {
        const counts = new Map<string, number>(STATES.map((s) => [s, 0]));
        for (const run of sources.runs()) counts.set(run.state, (counts.get(run.state) ?? 0) + 1);
        for (const [state, count] of counts) this.set({ state }, count);
      },
    });
    this.#runsEnded = new Counter({
      name: 'agentd_runs_ended_total',
      help: 'Runs that reached a terminal state, by that state.',
      labelNames: ['state'],
      registers,
    });
    this.#runDuration = new Histogram({
      name: 'agentd_run_duration_seconds',
      help: 'Wall time of subagent runs from spawn to terminal state.',
      labelNames: ['agent', 'state'],
      buckets: [0.1, 0.5, 1, 5, 15, 60, 300, 900, 3600],
      registers,
    });
    new Gauge({
      name: 'agentd_admission_queue_depth',
      help: 'Requests waiting for admission: Code Mode executions queued for a sandbox worker.',
      labelNames: ['queue'],
      registers,
      collect() {
        this.set({ queue: 'codemode' }, sources.codeMode()?.queued ?? 0);
      },
    });
    new Gauge({
      name: 'agentd_codemode_running',
      help: 'Code Mode executions running in a sandbox now.',
      registers,
      collect() {
        this.set(sources.codeMode()?.running ?? 0);
      },
    });
    this.#connections = new Gauge({
      name: 'agentd_connections',
      help: 'Open MCP connections by transport (HTTP: sessions and in-flight stateless requests).',
      labelNames: ['transport'],
      registers,
    });
    new Counter({
      name: 'agentd_cluster_lease_renewal_failures_total',
      help: 'Fleet lease renewals that failed (Redis unreachable); past the lease TTL, other replicas mark this one’s runs lost.',
      registers,
      collect() {
        const stats = sources.cluster?.();
        if (stats !== undefined) setCounter(this, stats.failedLeaseRenewals);
      },
    });
    new Counter({
      name: 'agentd_cluster_malformed_messages_total',
      help: 'Fleet pub/sub messages dropped because they could not be read, by channel.',
      labelNames: ['channel'],
      registers,
      collect() {
        const stats = sources.cluster?.();
        if (stats === undefined) return;
        this.reset();
        for (const [channel, count] of stats.malformedMessages) this.inc({ channel }, count);
      },
    });
    this.#requests = new Counter({
      name: 'agentd_requests_total',
      help: 'MCP requests answered by the self-MCP, by method and outcome (ok, error, cancelled).',
      labelNames: ['method', 'outcome'],
      registers,
    });
    this.#executions = new Counter({
      name: 'agentd_codemode_executions_total',
      help: 'Code Mode execute calls by outcome (ok, or the error code).',
      labelNames: ['outcome'],
      registers,
    });
    this.#limitHits = new Counter({
      name: 'agentd_codemode_limit_hits_total',
      help: 'Code Mode executions ended by a sandbox limit, by limit.',
      labelNames: ['limit'],
      registers,
    });
  }

  /** Every status change of a run; the first terminal one is counted and timed. */
  observeRun(status: SubagentStatus): void {
    this.#activity.observeRun(status);
    if (!status.terminal || this.#ended.has(status.handle)) {
      if (!status.terminal) this.#ended.delete(status.handle);
      return;
    }
    this.#ended.add(status.handle);
    // Bounded like the supervisor's handle table: forget the oldest observations.
    if (this.#ended.size > 10_000) this.#ended.delete(this.#ended.values().next().value as string);
    this.#runsEnded.inc({ state: status.state });
    const seconds = (Date.parse(status.endedAt ?? '') - Date.parse(status.startedAt)) / 1000;
    if (Number.isFinite(seconds) && seconds >= 0)
      this.#runDuration.observe({ agent: status.agent, state: status.state }, seconds);
  }

  /** Every run event: tokens, cost, tool calls and permission decisions, per agent. */
  observeEvent(handle: string, event: AgentEvent): void {
    this.#activity.observeEvent(handle, event);
  }

  observeExecution(outcome: ExecuteOutcome): void {
    const code = outcome.ok ? 'ok' : outcome.error.code;
    this.#executions.inc({ outcome: code });
    if (!outcome.ok && LIMIT_CODES.has(code)) this.#limitHits.inc({ limit: code });
  }

  /** The self-MCP handler with every request and connection counted. */
  instrument(handler: Handler): Handler {
    const requests = this.#requests;
    const connections = this.#connections;
    return {
      ...handler,
      capabilities: () => handler.capabilities(),
      async handle(request: JsonRpcRequest, context: RequestContext): Promise<JsonObject> {
        const method = KNOWN_METHODS.has(request.method) ? request.method : 'other';
        try {
          const result = await handler.handle(request, context);
          const failed = result.isError === true;
          requests.inc({ method, outcome: context.signal.aborted ? 'cancelled' : failed ? 'error' : 'ok' });
          return result;
        } catch (error) {
          const cancelled = context.signal.aborted && !(error instanceof WireError);
          requests.inc({ method, outcome: cancelled ? 'cancelled' : 'error' });
          throw error;
        }
      },
      onConnect(peer: Peer) {
        connections.inc({ transport: peer.transport });
        handler.onConnect?.(peer);
      },
      onDisconnect(peer: Peer) {
        connections.dec({ transport: peer.transport });
        handler.onDisconnect?.(peer);
      },
    };
  }
}

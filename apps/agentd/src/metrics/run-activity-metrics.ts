/**
 * What agents did, per agent, for Prometheus: tokens by type, cost in USD, tool calls by kind and
 * final status, permission decisions by outcome and decider, runs stopped by their budget. Every
 * label set is bounded: agent names come from the config, the rest are enums (run-event.ts).
 */
import { Counter, type Registry } from 'prom-client';
import type { SubagentStatus } from '../supervisor/index.js';
import type { RunUsage } from '../supervisor/run-event.js';
import type { AgentEvent } from '../supervisor/types.js';
import { readTelemetryEvent, usageDelta } from '../telemetry/run-event-reader.js';

/** What is kept of a live run between its events. */
interface LiveRun {
  readonly agent: string;
  usage: RunUsage | undefined;
  /** Tool calls seen and not yet completed or failed, by id, with their kind. */
  readonly open: Map<string, string>;
}

/** A run's calls still open past this are not tracked (an agent must not grow the map). */
const OPEN_MAX = 256;

export class RunActivityMetrics {
  readonly #tokens: Counter<'agent' | 'type'>;
  readonly #cost: Counter<'agent'>;
  readonly #toolCalls: Counter<'agent' | 'kind' | 'status'>;
  readonly #decisions: Counter<'agent' | 'outcome' | 'decided_by'>;
  readonly #overBudget: Counter<'agent'>;
  readonly #live = new Map<string, LiveRun>();

  constructor(registry: Registry) {
    const registers = [registry];
    this.#tokens = new Counter({
      name: 'agentd_tokens_total',
      help: 'Tokens agents used, by agent and type (input, output, cache_read, cache_write).',
      labelNames: ['agent', 'type'],
      registers,
    });
    this.#cost = new Counter({
      name: 'agentd_cost_usd_total',
      help: 'Cost agents reported, in US dollars, by agent.',
      labelNames: ['agent'],
      registers,
    });
    this.#toolCalls = new Counter({
      name: 'agentd_tool_calls_total',
      help: 'Tool calls agents finished, by agent, kind and status (completed, failed, unfinished at run end).',
      labelNames: ['agent', 'kind', 'status'],
      registers,
    });
    this.#decisions = new Counter({
      name: 'agentd_permission_decisions_total',
      help: 'Permission requests answered, by agent, outcome (the option kind, or cancelled) and who decided.',
      labelNames: ['agent', 'outcome', 'decided_by'],
      registers,
    });
    this.#overBudget = new Counter({
      name: 'agentd_runs_budget_exceeded_total',
      help: 'Runs stopped because they went over their budget (failed with budget_exceeded), by agent.',
      labelNames: ['agent'],
      registers,
    });
  }

  /** Every status change: a live run is tracked from its first status to its terminal one. */
  observeRun(status: SubagentStatus): void {
    if (!status.terminal) {
      if (!this.#live.has(status.handle))
        this.#live.set(status.handle, { agent: status.agent, usage: undefined, open: new Map() });
      return;
    }
    const run = this.#live.get(status.handle);
    if (run === undefined) return;
    this.#live.delete(status.handle);
    for (const kind of run.open.values())
      this.#toolCalls.inc({ agent: run.agent, kind, status: 'unfinished' });
    if (status.error?.code === 'budget_exceeded') this.#overBudget.inc({ agent: run.agent });
  }

  observeEvent(handle: string, raw: AgentEvent): void {
    const run = this.#live.get(handle);
    const event = run === undefined ? undefined : readTelemetryEvent(raw);
    if (run === undefined || event === undefined) return;
    const agent = run.agent;
    switch (event.type) {
      case 'usage': {
        const delta = usageDelta(run.usage, event.usage);
        run.usage = event.usage;
        this.#addTokens(agent, delta);
        return;
      }
      case 'tool_call': {
        const { id, kind, status } = event.toolCall;
        if (status === 'completed' || status === 'failed') {
          run.open.delete(id);
          this.#toolCalls.inc({ agent, kind, status });
        } else if (run.open.size < OPEN_MAX) run.open.set(id, kind);
        return;
      }
      case 'permission_decision': {
        const { decision } = event;
        const outcome = decision.outcome === 'selected' ? decision.kind : 'cancelled';
        this.#decisions.inc({ agent, outcome, decided_by: decision.by });
        return;
      }
      default:
        return;
    }
  }

  #addTokens(agent: string, delta: RunUsage): void {
    const types: [string, number][] = [
      ['input', delta.inputTokens],
      ['output', delta.outputTokens],
      ['cache_read', delta.cacheReadTokens],
      ['cache_write', delta.cacheWriteTokens],
    ];
    for (const [type, value] of types) if (value > 0) this.#tokens.inc({ agent, type }, value);
    if ((delta.costUsd ?? 0) > 0) this.#cost.inc({ agent }, delta.costUsd ?? 0);
  }
}

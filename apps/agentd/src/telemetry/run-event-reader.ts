/**
 * Reads the run events telemetry counts from the run's event pipe. The pipe also carries a
 * protocol agent's own events (any `type`, any fields), so nothing is trusted by its type alone:
 * a field of the wrong shape makes the event unreadable here, never a broken metric.
 */
import {
  type DecidedBy,
  isPermissionOptionKind,
  isToolCallStatus,
  isToolKind,
  type PermissionDecision,
  type PermissionOptionKind,
  type RunUsage,
  type ToolCallStatus,
  type ToolKind,
} from '../supervisor/run-event.js';
import type { AgentEvent } from '../supervisor/types.js';

const DECIDERS = new Set<DecidedBy>(['policy', 'caller', 'operator', 'timeout', 'cancelled']);
/** Tool names are the agent's: bounded, so a label or attribute never grows without limit. */
const NAME_MAX = 64;

/** A tool call as telemetry sees it: names, never its title, input or output (content). */
export interface ToolCallFacts {
  readonly id: string;
  readonly name: string;
  readonly kind: ToolKind;
  readonly status: ToolCallStatus;
}

export type TelemetryEvent =
  | { type: 'tool_call'; toolCall: ToolCallFacts }
  | { type: 'usage'; usage: RunUsage }
  | { type: 'permission_decision'; decision: PermissionDecision }
  | { type: 'turn_end' };

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined;
}

function count(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;
}

function toolCall(value: unknown): ToolCallFacts | undefined {
  const call = record(value);
  if (call === undefined || typeof call.id !== 'string') return undefined;
  const kind = isToolKind(call.kind) ? call.kind : 'other';
  if (!isToolCallStatus(call.status)) return undefined;
  const name = typeof call.name === 'string' && call.name !== '' ? call.name.slice(0, NAME_MAX) : kind;
  return { id: call.id, name, kind, status: call.status as ToolCallStatus };
}

function usage(value: unknown): RunUsage | undefined {
  const u = record(value);
  if (u === undefined) return undefined;
  const inputTokens = count(u.inputTokens);
  const outputTokens = count(u.outputTokens);
  const cacheReadTokens = count(u.cacheReadTokens) ?? 0;
  const cacheWriteTokens = count(u.cacheWriteTokens) ?? 0;
  if (inputTokens === undefined || outputTokens === undefined) return undefined;
  const costUsd = count(u.costUsd);
  return {
    inputTokens,
    outputTokens,
    cacheReadTokens,
    cacheWriteTokens,
    ...(costUsd === undefined ? {} : { costUsd }),
  };
}

function decision(value: unknown): PermissionDecision | undefined {
  const d = record(value);
  if (d === undefined || !DECIDERS.has(d.by as DecidedBy)) return undefined;
  const by = d.by as DecidedBy;
  if (d.outcome === 'cancelled') return { outcome: 'cancelled', by };
  if (d.outcome !== 'selected' || !isPermissionOptionKind(d.kind)) return undefined;
  return { outcome: 'selected', optionId: String(d.optionId), kind: d.kind as PermissionOptionKind, by };
}

/** The event when it is one telemetry reads and well formed; undefined otherwise. */
export function readTelemetryEvent(event: AgentEvent): TelemetryEvent | undefined {
  switch (event.type) {
    case 'tool_call': {
      const facts = toolCall(event.toolCall);
      return facts === undefined ? undefined : { type: 'tool_call', toolCall: facts };
    }
    case 'usage': {
      const totals = usage(event.usage);
      return totals === undefined ? undefined : { type: 'usage', usage: totals };
    }
    case 'permission_decision': {
      const answer = decision(event.decision);
      return answer === undefined ? undefined : { type: 'permission_decision', decision: answer };
    }
    case 'turn_end':
      return { type: 'turn_end' };
    default:
      return undefined;
  }
}

/** Usage events carry totals: what was added since `before` (never negative). */
export function usageDelta(before: RunUsage | undefined, after: RunUsage): RunUsage {
  const minus = (a: number, b: number | undefined): number => Math.max(0, a - (b ?? 0));
  return {
    inputTokens: minus(after.inputTokens, before?.inputTokens),
    outputTokens: minus(after.outputTokens, before?.outputTokens),
    cacheReadTokens: minus(after.cacheReadTokens, before?.cacheReadTokens),
    cacheWriteTokens: minus(after.cacheWriteTokens, before?.cacheWriteTokens),
    costUsd: minus(after.costUsd ?? 0, before?.costUsd),
  };
}

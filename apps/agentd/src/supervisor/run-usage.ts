/**
 * Usage totals and budgets: adding an agent's per-turn usage, the effective budget of a run
 * (profile and request), and whether usage went past it. Metrics exporters (Prometheus, OTel)
 * read the same `RunUsage` totals from the run's status.
 */
import type { RunUsage } from './run-event.js';
import type { RunBudget } from './types.js';

export const ZERO_USAGE: Readonly<RunUsage> = Object.freeze({
  inputTokens: 0,
  outputTokens: 0,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
});

function totalTokens(usage: RunUsage): number {
  return usage.inputTokens + usage.outputTokens + usage.cacheReadTokens + usage.cacheWriteTokens;
}

/** `total` plus `delta` (token counts add; a cost adds when either has one). */
export function addUsage(total: RunUsage, delta: RunUsage): RunUsage {
  const sum: RunUsage = {
    inputTokens: total.inputTokens + delta.inputTokens,
    outputTokens: total.outputTokens + delta.outputTokens,
    cacheReadTokens: total.cacheReadTokens + delta.cacheReadTokens,
    cacheWriteTokens: total.cacheWriteTokens + delta.cacheWriteTokens,
  };
  if (total.costUsd !== undefined || delta.costUsd !== undefined)
    sum.costUsd = (total.costUsd ?? 0) + (delta.costUsd ?? 0);
  return sum;
}

/** What went past the budget, in words; undefined while within it. */
export function budgetExceeded(budget: RunBudget | undefined, usage: RunUsage): string | undefined {
  if (budget === undefined) return undefined;
  if (budget.maxCostUsd !== undefined && (usage.costUsd ?? 0) > budget.maxCostUsd)
    return `cost $${(usage.costUsd ?? 0).toFixed(6)} is over maxCostUsd $${budget.maxCostUsd}`;
  const tokens = totalTokens(usage);
  if (budget.maxTokens !== undefined && tokens > budget.maxTokens)
    return `${tokens} tokens is over maxTokens ${budget.maxTokens}`;
  return undefined;
}

/** The run's budget: each limit is the tighter of the profile's and the request's. */
export function effectiveBudget(
  profile: RunBudget | undefined,
  request: RunBudget | undefined,
): RunBudget | undefined {
  if (profile === undefined) return request;
  if (request === undefined) return profile;
  const budget: RunBudget = {};
  const cost = tighter(profile.maxCostUsd, request.maxCostUsd);
  const tokens = tighter(profile.maxTokens, request.maxTokens);
  if (cost !== undefined) budget.maxCostUsd = cost;
  if (tokens !== undefined) budget.maxTokens = tokens;
  return budget;
}

/** Why a budget is malformed as [field, message], or undefined when it is good. */
export function budgetProblem(value: unknown): [string, string] | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return ['', 'must be an object'];
  const budget = value as Record<string, unknown>;
  for (const key of Object.keys(budget)) {
    if (key !== 'maxCostUsd' && key !== 'maxTokens')
      return [`.${key}`, 'unknown key (maxCostUsd, maxTokens)'];
  }
  const cost = budget.maxCostUsd;
  if (cost !== undefined && (typeof cost !== 'number' || !Number.isFinite(cost) || cost <= 0))
    return ['.maxCostUsd', 'must be a positive number of US dollars'];
  const tokens = budget.maxTokens;
  if (tokens !== undefined && (typeof tokens !== 'number' || !Number.isSafeInteger(tokens) || tokens < 1))
    return ['.maxTokens', 'must be a positive integer'];
  return undefined;
}

function tighter(a: number | undefined, b: number | undefined): number | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return Math.min(a, b);
}

/** A run's usage totals from ACP: tokens from each `session/prompt` answer, cost from `usage_update`. */
import type { PromptResponse } from '@agentclientprotocol/sdk/unstable';
import type { RunUsage } from './run-event.js';

function count(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : 0;
}

export class UsageTotals {
  private totals: RunUsage | undefined;

  /** The totals so far, or undefined when the agent reported none. */
  get current(): RunUsage | undefined {
    return this.totals === undefined ? undefined : { ...this.totals };
  }

  /** A turn's token counts (ACP's `PromptResponse.usage`), added to the run's. */
  addTurn(usage: PromptResponse['usage']): RunUsage | undefined {
    if (usage == null) return undefined;
    const total = this.base();
    total.inputTokens += count(usage.inputTokens);
    total.outputTokens += count(usage.outputTokens);
    total.cacheReadTokens += count(usage.cachedReadTokens);
    total.cacheWriteTokens += count(usage.cachedWriteTokens);
    this.totals = total;
    return this.current;
  }

  /** The session's cumulative cost (ACP's `usage_update`). */
  setCost(costUsd: number): RunUsage | undefined {
    this.totals = { ...this.base(), costUsd };
    return this.current;
  }

  private base(): RunUsage {
    return this.totals ?? { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };
  }
}

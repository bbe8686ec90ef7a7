/**
 * End to end: Code Mode's fair share through the daemon's defaults. 24 local callers (each its own
 * unix connection, so its own principal) loop `while (true) {}`; a light caller that has run before
 * sends a trivial execute once all 24 are admitted. It must start on the next worker to free, not
 * after the hogs queued before it: fewer hog executions end between its request and its answer
 * than there are sandbox threads. An order, not a time: on the old scheduler 16 ended first.
 */

import { type Json, NdjsonClient } from '@agentd/test-support';
import { describe, expect, it } from 'vitest';
import { startAgentd } from './support/agentd-process.js';

const HOGS = 24;
/** The runner's default `maxWorkers`: at most this many executions compute at once. */
const MAX_WORKERS = 8;

function execute(client: NdjsonClient, code: string): Promise<Json> {
  return client.modernResult('tools/call', { name: 'execute', arguments: { code } });
}

/** Queued plus running Code Mode executions, from the daemon's own metrics. */
async function inFlight(metricsUrl: string): Promise<number> {
  const text = await (await fetch(metricsUrl)).text();
  const value = (name: string) =>
    Number(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(text)?.[1] ?? 0);
  return value('agentd_admission_queue_depth') + value('agentd_codemode_running');
}

describe('Code Mode fairness through the daemon', () => {
  it('starts a light caller before hog callers queued ahead of it that have not run yet', async () => {
    const agentd = await startAgentd({
      config: { codeMode: { cpuMs: 1500 } },
      args: ['--metrics', 'http://127.0.0.1:0'],
    });
    const metricsUrl = /metrics: (\S+)/.exec(agentd.stdout.join(''))?.[1] as string;
    const light = await NdjsonClient.connect(agentd.socket);
    const hogs = await Promise.all(Array.from({ length: HOGS }, () => NdjsonClient.connect(agentd.socket)));
    try {
      // The light caller has a history: it ran, using next to no CPU.
      expect((await execute(light, 'return 1 + 2;')).isError).not.toBe(true);
      let hogsEnded = 0;
      const spinning = hogs.map(async (hog) => {
        const result = await execute(hog, 'while (true) {}');
        hogsEnded += 1;
        return result;
      });
      // Every hog admitted (running or queued) before the light caller asks.
      await expect.poll(() => inFlight(metricsUrl), { timeout: 30_000, interval: 50 }).toBe(HOGS);
      const endedBefore = hogsEnded;
      const answer = await execute(light, 'return 1 + 2;');
      const endedMeanwhile = hogsEnded - endedBefore;
      expect(answer.isError).not.toBe(true);
      expect(answer.structuredContent).toMatchObject({ result: 3 });
      // At most the executions running when it asked can end before it starts (it is next), far
      // fewer than the 16 queued ahead of it.
      expect(endedMeanwhile).toBeLessThan(MAX_WORKERS);
      // The hogs end at their CPU limit (or, on a machine too slow for their turns, busy).
      for (const result of await Promise.all(spinning)) expect(result.isError).toBe(true);
    } finally {
      for (const client of [light, ...hogs]) client.end();
      await agentd.stop();
    }
  }, 120_000);
});

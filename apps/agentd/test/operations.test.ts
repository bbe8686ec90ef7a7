/** End to end: operator operations, limits, and drain (SIGTERM and the drain operation) exiting 0 with no lost results. */

import { type Json, NdjsonClient, resourceValue, toolValue } from '@agentd/test-support';
import { describe, expect, it } from 'vitest';
import { TEST_AGENT_CONFIG } from '../src/supervisor/test-support/test-agent.js';
import { startAgentd } from './support/agentd-process.js';

function tool(client: NdjsonClient, name: string, args: Json = {}): Promise<Json> {
  return client.modernResult('tools/call', { name, arguments: args });
}

/** The refusal code at the end of an isError result's text, e.g. `… (limit_reached)`. */
const errorCode = (result: Json) => {
  expect(result.isError).toBe(true);
  const text = (result.content as { text: string }[])[0]?.text ?? '';
  return /\(([a-z_]+)\)$/.exec(text)?.[1];
};

describe('operator operations and limits', () => {
  it('lame-duck, pause/resume, cancel-all, limits with clear refusals, eviction, then drain by operation', async () => {
    const agentd = await startAgentd({
      args: ['--exposure', 'classic'],
      config: {
        agents: { example: TEST_AGENT_CONFIG },
        limits: { maxConcurrentRuns: 1, maxWarmSessions: 1, maxTrackedHandles: 3, maxOutputBytes: 2000 },
      },
    });
    const c = await NdjsonClient.connect(agentd.socket);
    try {
      expect(toolValue(await tool(c, 'command_lame-duck', { ready: false }))).toMatchObject({ ready: false });
      expect(toolValue(await tool(c, 'query_status'))).toMatchObject({ ready: false, draining: false });
      expect(toolValue(await tool(c, 'command_lame-duck', { ready: true }))).toMatchObject({ ready: true });

      expect(toolValue(await tool(c, 'command_pause'))).toMatchObject({ paused: true });
      const paused = await tool(c, 'command_subagent.spawn', { instruction: 'echo no' });
      expect(paused.isError).toBe(true);
      expect(errorCode(paused)).toBe('paused');
      expect(toolValue(await tool(c, 'command_resume'))).toMatchObject({ paused: false });

      const first = toolValue(
        await tool(c, 'command_subagent.spawn', { instruction: 'sleep 30000', async: true }),
      );
      const second = await tool(c, 'command_subagent.spawn', { instruction: 'echo two' });
      expect(second.isError).toBe(true);
      expect(errorCode(second)).toBe('limit_reached');
      const warm = toolValue(
        await tool(c, 'command_subagent.spawn', { instruction: 'echo warm', warm: true }),
      );
      expect(warm).toMatchObject({ state: 'ready' });
      const warm2 = await tool(c, 'command_subagent.spawn', { instruction: 'echo warm', warm: true });
      expect(errorCode(warm2)).toBe('limit_reached');

      const cancelled = toolValue(
        await tool(c, 'command_cancel', { handle: first.handle, reason: 'operator' }),
      );
      expect((cancelled.cancelled as Json[])[0]).toMatchObject({ state: 'cancelled' });

      const bigResult = await tool(c, 'command_subagent.spawn', { instruction: 'big 5000' });
      // A sync spawn whose run failed says so in isError, with the status still structured.
      expect(bigResult.isError).toBe(true);
      const big = toolValue(bigResult);
      expect(big).toMatchObject({ state: 'failed', error: { code: 'output_too_large' } });
      const good = await tool(c, 'command_subagent.spawn', { instruction: 'echo fine' });
      expect(good.isError).not.toBe(true);
      for (let i = 0; i < 3; i++) await tool(c, 'command_subagent.spawn', { instruction: `echo ${i}` });
      // The oldest finished handles are evicted (the run history still answers for them); the
      // live warm session never is.
      const inventory = resourceValue(await c.modernResult('resources/read', { uri: 'agent://inventory' }));
      const tracked = (inventory.subagents as Json[]).map((s) => s.handle);
      expect(tracked).not.toContain(first.handle);
      expect(toolValue(await tool(c, 'query_subagent.status', { handle: first.handle }))).toMatchObject({
        state: 'cancelled',
      });
      expect(toolValue(await tool(c, 'query_subagent.status', { handle: warm.handle }))).toMatchObject({
        state: 'ready',
      });

      const last = toolValue(
        await tool(c, 'command_subagent.spawn', { instruction: 'sleep 30000', async: true }),
      );
      const all = toolValue(await tool(c, 'command_cancel', {}));
      expect((all.cancelled as Json[]).map((s) => s.handle).sort()).toEqual(
        [last.handle, warm.handle].sort(),
      );
      expect(toolValue(await tool(c, 'query_subagent.status', { handle: last.handle }))).toMatchObject({
        state: 'cancelled',
      });

      const drained = toolValue(await tool(c, 'command_drain', { deadlineMs: 100 }));
      expect(drained).toMatchObject({ draining: true, deadlineMs: 100 });
      expect((await agentd.exited).code).toBe(0);
    } finally {
      c.end();
      await agentd.stop();
    }
  });
});

describe('SIGTERM drain', () => {
  it('refuses new spawns, lets running ones finish and deliver, cancels the rest at the deadline, exits 0', async () => {
    const agentd = await startAgentd({ args: ['--exposure', 'classic', '--drain-timeout-ms', '2500'] });
    const c = await NdjsonClient.connect(agentd.socket);
    const watcher = await NdjsonClient.connect(agentd.socket);
    await watcher.initialize();
    try {
      const quick = toolValue(
        await tool(c, 'command_subagent.spawn', { instruction: 'sleep 700', async: true }),
      );
      const slow = toolValue(
        await tool(c, 'command_subagent.spawn', { instruction: 'sleep 60000', async: true }),
      );
      await watcher.legacy('resources/subscribe', { uri: `agent://subagent/${quick.handle}` });
      await watcher.legacy('resources/subscribe', { uri: `agent://subagent/${slow.handle}` });
      const syncResult = tool(c, 'command_subagent.spawn', { instruction: 'sleep 900' });
      await agentd.waitForLog(
        (l) => l.msg === 'subagent starting' && l.handle !== quick.handle && l.handle !== slow.handle,
      );
      agentd.proc.kill('SIGTERM');
      await agentd.waitForLog((l) => l.msg === 'draining');
      const refused = await tool(c, 'command_subagent.spawn', { instruction: 'echo late' });
      expect(errorCode(refused)).toBe('draining');
      // The sync caller gets its result; the async run's subscriber is told, and can read it during the drain.
      expect(toolValue(await syncResult)).toMatchObject({ state: 'succeeded', output: 'slept 900 ms' });
      await watcher.waitFor(
        (m) =>
          m.method === 'notifications/resources/updated' &&
          (m.params as Json).uri === `agent://subagent/${quick.handle}`,
      );
      expect(
        toolValue(
          await watcher.legacy('tools/call', {
            name: 'query_subagent.status',
            arguments: { handle: quick.handle },
          }),
        ),
      ).toMatchObject({
        state: 'succeeded',
      });
      // The slow one is cancelled at the deadline and its subscriber hears about it before the socket closes.
      await watcher.waitFor(
        (m) =>
          m.method === 'notifications/resources/updated' &&
          (m.params as Json).uri === `agent://subagent/${slow.handle}`,
      );
      expect((await agentd.exited).code).toBe(0);
      expect(
        agentd.logs.some(
          (l) => l.msg === 'subagent ended' && l.runId === slow.runId && l.state === 'cancelled',
        ),
      ).toBe(true);
    } finally {
      c.end();
      watcher.end();
      await agentd.stop();
    }
  });
});

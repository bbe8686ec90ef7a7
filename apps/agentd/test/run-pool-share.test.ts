/**
 * Issue 39, finding 6, as the adversarial peer: restricted peers (anonymous HTTP from many
 * connections, the stdio harness) cannot fill the run pool, the operator's spawn still succeeds,
 * an over-long timeout from a restricted peer is refused, and every refusal names its limit.
 */
import { type Json, NdjsonClient, toolValue } from '@agentd/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_AGENT_CONFIG } from '../src/supervisor/test-support/test-agent.js';
import { httpTool, type MixedPeers, refusalText, startMixedPeers } from './support/mixed-peers.js';

const MAX_TIMER_MS = 2_147_483_647;
let peers: MixedPeers;
let operator: NdjsonClient;

beforeAll(async () => {
  peers = await startMixedPeers({
    exposure: 'classic',
    agents: { example: TEST_AGENT_CONFIG },
    // The daemon: 4 concurrent runs; 2 warm sessions so that pool is tested too.
    limits: { maxConcurrentRuns: 4, maxWarmSessions: 2 },
  });
  operator = await NdjsonClient.connect(peers.socket);
}, 30_000);

afterAll(async () => {
  operator?.stream.end();
  await peers?.stop();
});

const operatorTool = async (name: string, args: Json) =>
  (await operator.modernResult('tools/call', { name, arguments: args })) as Json;
const stdioTool = async (name: string, args: Json) =>
  (await peers.stdio.modernResult('tools/call', { name, arguments: args })) as Json;
/** Each call is a new HTTP connection: anonymous peers must not gain a share per connection. */
const anonymousTool = (name: string, args: Json) => httpTool(peers.httpUrl, name, args);

const longRun = { instruction: 'sleep 60000', async: true };

describe('the run pool’s fair share', () => {
  it('restricted peers cannot fill the pool; the operator’s spawn still succeeds', async () => {
    const handles: string[] = [];
    try {
      // Anonymous HTTP peers together hold 2 (restrictedRunsPerPrincipal), however many connections.
      for (let i = 0; i < 2; i++)
        handles.push(String(toolValue(await anonymousTool('command_subagent.spawn', longRun)).handle));
      const third = refusalText(await anonymousTool('command_subagent.spawn', longRun));
      expect(third).toBe(
        'limit reached: anonymous HTTP peers (one share together) may hold 2 concurrent runs at once (limits.restrictedRunsPerPrincipal); all 2 in use; retry later (limit_reached)',
      );
      // The stdio harness, a principal of its own, gets the third restricted run, not the fourth.
      handles.push(String(toolValue(await stdioTool('command_subagent.spawn', longRun)).handle));
      const fourth = refusalText(await stdioTool('command_subagent.spawn', longRun));
      expect(fourth).toBe(
        'limit reached: restricted peers share 3 of 4 concurrent runs (limits.reservedRuns keeps 1 for operators); all 3 in use; retry later (limit_reached)',
      );
      // The operator's reserve is there: its spawn runs to the end.
      const mine = toolValue(await operatorTool('command_subagent.spawn', { instruction: 'echo operator' }));
      expect(mine).toMatchObject({
        state: 'succeeded',
        output: 'operator',
        startedBy: { trust: 'management' },
      });
    } finally {
      for (const handle of handles) await operatorTool('command_cancel', { handle });
    }
  });

  it('keeps a warm session for operators too', async () => {
    const handles: string[] = [];
    try {
      handles.push(
        String(
          toolValue(await stdioTool('command_subagent.spawn', { instruction: 'echo hi', warm: true })).handle,
        ),
      );
      const refused = refusalText(
        await anonymousTool('command_subagent.spawn', { instruction: 'echo hi', warm: true }),
      );
      expect(refused).toContain(
        'restricted peers share 1 of 2 warm sessions (limits.reservedWarmSessions keeps 1 for operators)',
      );
      const mine = toolValue(
        await operatorTool('command_subagent.spawn', { instruction: 'echo hi', warm: true }),
      );
      expect(mine.state).toBe('ready');
      handles.push(String(mine.handle));
    } finally {
      for (const handle of handles) await operatorTool('command_cancel', { handle });
    }
  });

  it('refuses an over-long timeout from a restricted peer, saying which limit; an operator may ask for it', async () => {
    for (const ask of [anonymousTool, stdioTool]) {
      const text = refusalText(
        await ask('command_subagent.spawn', { instruction: 'echo x', timeoutMs: MAX_TIMER_MS }),
      );
      expect(text).toBe(
        `timeoutMs ${MAX_TIMER_MS} is over the 3600000 ms restricted peers may ask for (limits.restrictedMaxTimeoutMs) (invalid_request)`,
      );
    }
    // Within the cap it runs; an operator may ask for the longest timer there is.
    expect(
      toolValue(
        await anonymousTool('command_subagent.spawn', { instruction: 'echo ok', timeoutMs: 3_600_000 }),
      ),
    ).toMatchObject({ state: 'succeeded' });
    expect(
      toolValue(
        await operatorTool('command_subagent.spawn', { instruction: 'echo ok', timeoutMs: MAX_TIMER_MS }),
      ),
    ).toMatchObject({ state: 'succeeded' });
  });

  it('caps the turns of a restricted peer’s warm session, whoever holds its handle', async () => {
    const session = toolValue(
      await stdioTool('command_subagent.spawn', { instruction: 'echo hi', warm: true }),
    );
    try {
      const turn = { handle: session.handle, message: 'echo again', timeoutMs: MAX_TIMER_MS };
      expect(refusalText(await operatorTool('command_subagent.send', turn))).toContain(
        'limits.restrictedMaxTimeoutMs',
      );
      const reply = toolValue(await operatorTool('command_subagent.send', { ...turn, timeoutMs: 60_000 }));
      expect(reply).toMatchObject({ isError: false, output: 'again' });
    } finally {
      await operatorTool('command_cancel', { handle: session.handle });
    }
  });

  it('caps a restricted sender’s turn on an operator’s session too', async () => {
    const session = toolValue(
      await operatorTool('command_subagent.spawn', { instruction: 'echo hi', warm: true }),
    );
    try {
      const turn = { handle: session.handle, message: 'echo again', timeoutMs: MAX_TIMER_MS };
      expect(refusalText(await anonymousTool('command_subagent.send', turn))).toContain(
        'limits.restrictedMaxTimeoutMs',
      );
      expect(toolValue(await operatorTool('command_subagent.send', turn))).toMatchObject({ output: 'again' });
    } finally {
      await operatorTool('command_cancel', { handle: session.handle });
    }
  });
});

describe('the run pool’s fair share through Code Mode', () => {
  let codemode: MixedPeers;
  beforeAll(async () => {
    codemode = await startMixedPeers({
      exposure: 'codemode',
      agents: { example: TEST_AGENT_CONFIG },
      limits: { maxConcurrentRuns: 4 },
    });
  }, 30_000);
  afterAll(async () => {
    await codemode?.stop();
  });

  it('anonymous execute calls cannot take every run; the operator’s execute still spawns', async () => {
    // The attack: anonymous scripts that each start long runs with the longest timeout.
    const code = `
      const said = [];
      for (let i = 0; i < 4; i++) {
        try {
          const run = await agentd.subagent.spawn({ instruction: 'sleep 60000', async: true, timeoutMs: ${MAX_TIMER_MS} });
          said.push(run.state);
        } catch (error) {
          said.push(String(error.message ?? error));
        }
        try {
          const run = await agentd.subagent.spawn({ instruction: 'sleep 60000', async: true });
          said.push(run.state);
        } catch (error) {
          said.push(String(error.message ?? error));
        }
      }
      return said;`;
    const said = [];
    for (let i = 0; i < 2; i++) {
      const result = await httpTool(codemode.httpUrl, 'execute', { code });
      said.push(...((result.structuredContent as Json).result as string[]));
    }
    expect(said.filter((s) => s === 'running')).toHaveLength(2);
    expect(said.filter((s) => s.includes('limits.restrictedMaxTimeoutMs'))).toHaveLength(8);
    expect(said.filter((s) => s.includes('limits.restrictedRunsPerPrincipal'))).toHaveLength(6);
    const operator = await NdjsonClient.connect(codemode.socket);
    try {
      const mine = await operator.modernResult('tools/call', {
        name: 'execute',
        arguments: {
          code: `return await agentd.subagent.spawn({ instruction: 'echo operator', timeoutMs: ${MAX_TIMER_MS} });`,
        },
      });
      expect((mine.structuredContent as Json).result).toMatchObject({
        state: 'succeeded',
        output: 'operator',
      });
      await operator.modernResult('tools/call', {
        name: 'execute',
        arguments: { code: 'return await agentd.cancel({});' },
      });
    } finally {
      operator.stream.end();
    }
  });
});

/**
 * Issue 39, finding 7: a handle is a capability, so it is never written to a log line, at any
 * level, nor to agent://events. Every way a run comes and goes (sync, async, warm turns, attach,
 * cancel, a refusal, an agent that fails) happens at debug level; then the daemon's stderr and
 * its event ring are searched for every handle handed out.
 */
import { type Json, NdjsonClient, resourceValue, toolValue } from '@agentd/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_AGENT_CONFIG } from '../src/supervisor/test-support/test-agent.js';
import { httpTool, type MixedPeers, startMixedPeers } from './support/mixed-peers.js';

let peers: MixedPeers;
let operator: NdjsonClient;

beforeAll(async () => {
  peers = await startMixedPeers({
    exposure: 'classic',
    logLevel: 'debug',
    agents: { example: TEST_AGENT_CONFIG },
    // A tiny tracked set, so finished runs are evicted (a debug line) while the test runs.
    limits: { maxTrackedHandles: 3 },
  });
  operator = await NdjsonClient.connect(peers.socket);
}, 30_000);

afterAll(async () => {
  operator?.stream.end();
  await peers?.stop();
});

const operatorTool = async (name: string, args: Json) =>
  toolValue((await operator.modernResult('tools/call', { name, arguments: args })) as Json);
const stdioTool = async (name: string, args: Json) =>
  toolValue((await peers.stdio.modernResult('tools/call', { name, arguments: args })) as Json);

/** Every event in the ring, paging with `after` as the ring says. */
async function allEvents(): Promise<Json[]> {
  const events: Json[] = [];
  let after = 0;
  for (;;) {
    const uri = `agent://events?after=${after}&level=debug`;
    const page = resourceValue(await operator.modernResult('resources/read', { uri }));
    events.push(...(page.events as Json[]));
    if (page.more !== true) return events;
    after = Number((page.events as Json[]).at(-1)?.seq);
  }
}

describe('handles never reach the log', () => {
  it('logs runs by run id at every level, and no handle in stderr nor agent://events', async () => {
    const handles: string[] = [];
    const runIds: string[] = [];
    const remember = (status: Json) => {
      handles.push(String(status.handle));
      runIds.push(String(status.runId));
      return status;
    };
    remember(await stdioTool('command_subagent.spawn', { instruction: 'echo sync' }));
    remember(await stdioTool('command_subagent.spawn', { instruction: 'fail on purpose' }));
    const asyncRun = remember(
      await httpTool(peers.httpUrl, 'command_subagent.spawn', {
        instruction: 'sleep 60000',
        async: true,
      }).then(toolValue),
    );
    await operatorTool('query_subagent.status', { handle: asyncRun.handle });
    await operatorTool('command_subagent.cancel', { handle: asyncRun.handle, reason: 'test' });
    await operatorTool('query_subagent.attach', { handle: asyncRun.handle });
    const warm = remember(
      await operatorTool('command_subagent.spawn', { instruction: 'echo hi', warm: true }),
    );
    await operatorTool('command_subagent.send', { handle: warm.handle, message: 'echo turn' });
    await operatorTool('command_cancel', { handle: warm.handle });
    // Unknown handles and refusals are logged too: their text must not echo what was asked.
    const refused = (args: Json) =>
      peers.stdio.modernResult('tools/call', { name: 'command_subagent.spawn', arguments: args });
    const unknown = await peers.stdio.modernResult('tools/call', {
      name: 'query_subagent.status',
      arguments: { handle: `${String(warm.handle).slice(0, -1)}x` },
    });
    expect(unknown.isError).toBe(true);
    expect((await refused({ instruction: 'echo x', timeoutMs: 2_147_483_647 })).isError).toBe(true);
    for (let i = 0; i < 3; i++)
      remember(await operatorTool('command_subagent.spawn', { instruction: `echo ${i}` }));

    const events = await allEvents();
    const everything = `${peers.stderr()}\n${JSON.stringify(events)}`;
    for (const handle of handles) expect(everything).not.toContain(handle);
    // The lines that used to carry the handle name the run instead.
    const starting = peers.logs.filter((l) => l.msg === 'subagent starting');
    expect(starting.map((l) => l.runId)).toEqual(runIds);
    expect(events.some((e) => e.msg === 'finished run evicted' && runIds.includes(String(e.runId)))).toBe(
      true,
    );
    for (const line of [...starting, ...events]) expect(line).not.toHaveProperty('handle');
  });
});

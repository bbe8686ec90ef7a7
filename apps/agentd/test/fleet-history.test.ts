/**
 * Issue 36 for a fleet, through real processes: two replicas on one real redis-server keep the
 * fleet's history in Redis. One is killed (-9) during a streaming run, the other stopped, both
 * start again (as new instances): every finished run answers status, wait, attach, logs and
 * `runs --all` on either, the killed replica's live run is `lost` with the events it had, a
 * restricted peer lists only its own runs, and retention keeps the newest.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { clusterBinariesAvailable, type RedisServer, startRedisServer } from '@agentd/cluster-harness';
import { type Json, NdjsonClient, resourceValue, toolValue } from '@agentd/test-support';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { TEST_AGENT_CONFIG } from '../src/supervisor/test-support/test-agent.js';
import { type Agentd, runCli, startAgentd } from './support/agentd-process.js';
import { httpRequest } from './support/mixed-peers.js';

const runnable = clusterBinariesAvailable('agentd fleet history tests', ['redis-server']);
const LEASE_TTL_MS = 1500;

const AGENTS: Json = {
  example: TEST_AGENT_CONFIG,
  streamer: {
    mode: 'plain',
    command: '/bin/sh',
    args: ['-c', 'for i in 1 2 3; do echo "out-$i {instruction}"; done; sleep 60'],
  },
};

let redis: RedisServer;
const started: Agentd[] = [];

/** A replica: its own state directory (unused by a fleet's history), the shared Redis. */
async function replica(id: string, history: Json = {}, prefix = 'agentd:'): Promise<Agentd> {
  const agentd = await startAgentd({
    http: true,
    args: ['--no-watch', '--exposure', 'classic', '--instance-id', id],
    config: {
      agents: AGENTS,
      history,
      // Shared records expire a second after a run ends: what answers after that is the history.
      cluster: { redisUrl: redis.url, keyPrefix: prefix, leaseTtlMs: LEASE_TTL_MS, recordTtlMs: 1000 },
    },
    env: { XDG_STATE_HOME: mkdtempSync(join(tmpdir(), 'agentd-fleet-state-')) },
  });
  started.push(agentd);
  await agentd.waitForLog((l) => l.msg === 'joined the fleet');
  return agentd;
}

function tool(client: NdjsonClient, name: string, args: Json = {}): Promise<Json> {
  return client.modernResult('tools/call', { name, arguments: args });
}

async function read(client: NdjsonClient, uri: string): Promise<Json> {
  return resourceValue(await client.modernResult('resources/read', { uri }));
}

const cli = (agentd: Agentd, ...args: string[]) => runCli([...args, '--socket', agentd.socket]);

describe.runIf(runnable)('a fleet keeps its history in Redis', () => {
  beforeAll(async () => {
    redis = await startRedisServer();
  });
  afterAll(async () => {
    await Promise.allSettled(started.map((a) => a.stop()));
    await redis?.close();
  });

  it('kill -9 one replica mid-run, stop the other, restart both: the history answers on either', async () => {
    const a = await replica('a');
    const b = await replica('b');
    const ca = await NdjsonClient.connect(a.socket);
    const cb = await NdjsonClient.connect(b.socket);
    const onA = toolValue(await tool(ca, 'command_subagent.spawn', { instruction: 'echo kept-on-a' }));
    const onB = toolValue(await tool(cb, 'command_subagent.spawn', { instruction: 'echo kept-on-b' }));
    expect(onA).toMatchObject({ state: 'succeeded', output: 'kept-on-a' });
    const live = toolValue(
      await tool(ca, 'command_subagent.spawn', { agent: 'streamer', instruction: 'live', async: true }),
    );
    // Its events reach Redis as they happen: b reads the third line, then a is killed.
    await vi.waitFor(
      async () => {
        const logs = await read(cb, `agent://logs/${String(live.handle)}`);
        expect(JSON.stringify(logs.events)).toContain('out-3 live');
      },
      { timeout: 20_000, interval: 50 },
    );
    ca.stream.end();
    cb.stream.end();
    a.proc.kill('SIGKILL');
    await a.exited;
    await b.stop();

    const a2 = await replica('a2');
    const b2 = await replica('b2');
    // a's lease lapses; a survivor marks its live run lost, in the history too.
    const watcher = await NdjsonClient.connect(b2.socket);
    await vi.waitFor(
      async () =>
        expect(
          toolValue(await tool(watcher, 'query_subagent.status', { handle: live.handle })),
        ).toMatchObject({
          state: 'lost',
        }),
      { timeout: 20_000, interval: 100 },
    );
    watcher.stream.end();
    for (const reader of [a2, b2]) {
      const c = await NdjsonClient.connect(reader.socket);
      try {
        for (const [run, output] of [
          [onA, 'kept-on-a'],
          [onB, 'kept-on-b'],
        ] as const) {
          const status = toolValue(await tool(c, 'query_subagent.status', { handle: run.handle }));
          expect(status).toMatchObject({ runId: run.runId, state: 'succeeded', output });
          const byId = await read(c, `agent://run/${String(run.runId)}`);
          expect(JSON.stringify(byId)).toContain(output);
        }
        const gone = toolValue(await tool(c, 'query_subagent.status', { handle: live.handle }));
        expect(gone).toMatchObject({ runId: live.runId, state: 'lost', terminal: true });
        const logs = await cli(reader, 'logs', String(live.handle));
        expect(logs.stdout).toBe('out-1 live\nout-2 live\nout-3 live\n');
        const attached = await cli(reader, 'attach', String(live.handle));
        expect(JSON.stringify(attached)).toContain('out-3 live');
        expect(attached.code).toBe(1);
        const waited = await cli(reader, 'wait', String(onB.runId));
        expect(waited.code).toBe(0);
        expect(waited.stdout).toContain('kept-on-b');
        const all = JSON.parse((await cli(reader, 'runs', '--all', '--json')).stdout) as Json;
        expect((all.runs as Json[]).map((r) => r.runId)).toEqual([live.runId, onB.runId, onA.runId]);
        const lostOnly = JSON.parse(
          (await cli(reader, 'runs', '--all', '--json', '--state', 'lost')).stdout,
        ) as Json;
        expect((lostOnly.runs as Json[]).map((r) => r.runId)).toEqual([live.runId]);
        // An anonymous HTTP peer is restricted: the operator's runs are not in its history.
        const anonymous = await httpRequest(String(reader.httpUrl), 'resources/read', {
          uri: 'agent://runs',
        });
        const contents = (anonymous.result as Json).contents as Json[];
        expect(JSON.parse(String(contents[0]?.text))).toEqual({ runs: [] });
      } finally {
        c.stream.end();
      }
    }
  }, 120_000);

  it('retention across replicas: the oldest finished runs go first, whichever replica ran them', async () => {
    const prefix = 'retention:';
    const a = await replica('ra', { maxRuns: 3 }, prefix);
    const b = await replica('rb', { maxRuns: 3 }, prefix);
    const ca = await NdjsonClient.connect(a.socket);
    const cb = await NdjsonClient.connect(b.socket);
    try {
      const runIds: string[] = [];
      for (const [i, word] of ['one', 'two', 'three', 'four', 'five'].entries()) {
        const status = toolValue(
          await tool(i % 2 === 0 ? ca : cb, 'command_subagent.spawn', { instruction: `echo ${word}` }),
        );
        runIds.push(String(status.runId));
      }
      const expected = [runIds[4], runIds[3], runIds[2]];
      for (const reader of [a, b]) {
        await vi.waitFor(
          async () => {
            const all = JSON.parse((await cli(reader, 'runs', '--all', '--json')).stdout) as Json;
            expect((all.runs as Json[]).map((r) => r.runId)).toEqual(expected);
          },
          { timeout: 15_000, interval: 100 },
        );
      }
      const logs = await read(ca, 'agent://runs?limit=2');
      expect((logs.runs as Json[]).map((r) => r.runId)).toEqual(expected.slice(0, 2));
      expect(typeof logs.nextCursor).toBe('string');
    } finally {
      ca.stream.end();
      cb.stream.end();
    }
  }, 60_000);
});

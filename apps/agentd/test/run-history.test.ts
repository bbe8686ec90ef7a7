/**
 * Issue 36, through real processes: runs outlive the daemon. `kill -9` during a streaming run,
 * restart on the same state directory: the finished runs answer by handle and run id, the live
 * one is `lost` with the events it had; a second daemon on the directory is refused.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Json, NdjsonClient, resourceValue, toolValue } from '@agentd/test-support';
import { describe, expect, it, vi } from 'vitest';
import { TEST_AGENT_CONFIG } from '../src/supervisor/test-support/test-agent.js';
import { type Agentd, CLI, cleanEnv, runCli, startAgentd } from './support/agentd-process.js';
import { httpRequest, startMixedPeers } from './support/mixed-peers.js';

const CONFIG: Json = {
  agents: {
    example: TEST_AGENT_CONFIG,
    streamer: {
      mode: 'plain',
      command: '/bin/sh',
      args: ['-c', 'for i in 1 2 3; do echo "out-$i {instruction}"; done; sleep 60'],
    },
  },
};

function tool(client: NdjsonClient, name: string, args: Json = {}): Promise<Json> {
  return client.modernResult('tools/call', { name, arguments: args });
}

const start = (state: string, config: Json = CONFIG) =>
  startAgentd({ args: ['--exposure', 'classic'], config, env: { XDG_STATE_HOME: state } });

async function connect(agentd: Agentd): Promise<NdjsonClient> {
  return NdjsonClient.connect(agentd.socket);
}

describe('runs survive the daemon', () => {
  it('kill -9 during a streaming run: earlier runs intact, the live one lost with its events', async () => {
    const state = mkdtempSync(join(tmpdir(), 'agentd-state-'));
    const first = await start(state);
    const c1 = await connect(first);
    const done = toolValue(await tool(c1, 'command_subagent.spawn', { instruction: 'echo kept-output' }));
    expect(done).toMatchObject({ state: 'succeeded', output: 'kept-output' });
    const live = toolValue(
      await tool(c1, 'command_subagent.spawn', { agent: 'streamer', instruction: 'live', async: true }),
    );
    // The daemon writes events as they happen: wait until the third line is on disk, then kill it.
    const log = join(state, 'agentd', 'history', 'events', `${String(live.runId)}.jsonl`);
    await vi.waitFor(
      () =>
        expect(existsSync(log) && readFileSync(log, 'utf8').includes('out-3'), `out-3 in ${log}`).toBe(true),
      { timeout: 20_000, interval: 20 },
    );
    c1.stream.end();
    first.proc.kill('SIGKILL');
    await first.exited;

    const second = await start(state);
    const c2 = await connect(second);
    try {
      const lost = second.logs.find((l) => l.msg === 'run history');
      expect(lost).toMatchObject({ lost: [live.runId] });
      const old = toolValue(await tool(c2, 'query_subagent.status', { handle: done.handle }));
      expect(old).toMatchObject({ runId: done.runId, state: 'succeeded', output: 'kept-output' });
      const gone = toolValue(await tool(c2, 'query_subagent.status', { handle: live.handle }));
      expect(gone).toMatchObject({ runId: live.runId, state: 'lost', terminal: true });
      const byId = resourceValue(
        await c2.modernResult('resources/read', { uri: `agent://run/${String(done.runId)}` }),
      );
      expect(JSON.stringify(byId)).toContain('kept-output');
      // A handle never stands for a run id, nor the reverse.
      const wrong = await tool(c2, 'query_subagent.status', { handle: String(done.runId) });
      expect(wrong.isError).toBe(true);

      // The whole output of the lost run, from its stored events.
      const env = { XDG_RUNTIME_DIR: second.dir };
      const logs = await runCli(['logs', String(live.handle), '--socket', second.socket], {
        ...process.env,
        ...env,
      });
      expect(logs.stderr).toBe('');
      expect(logs.stdout).toBe('out-1 live\nout-2 live\nout-3 live\n');
      const events = await runCli(['logs', String(live.handle), '--events', '--socket', second.socket]);
      const lines = events.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Json);
      // A plain run's lines are stored as `message` run events marked with their stream.
      expect(lines.map((l) => l.event)).toEqual(
        ['out-1 live', 'out-2 live', 'out-3 live'].map((text) => ({
          type: 'message',
          text,
          stream: 'stdout',
        })),
      );
      // attach replays the stored events, then answers with the final status (lost: exit 1).
      const attached = await runCli(['attach', String(live.handle), '--socket', second.socket]);
      expect(JSON.stringify(attached)).toContain('out-3 live');
      expect(attached.code).toBe(1);
      // wait and status by run id, the way the CLI takes either.
      const waited = await runCli(['wait', String(done.runId), '--socket', second.socket]);
      expect(waited.code).toBe(0);
      expect(waited.stdout).toContain('kept-output');
    } finally {
      c2.stream.end();
      await second.stop();
    }
  }, 60_000);

  it('runs --all pages and filters; retention keeps the newest; a restricted peer sees no one else’s runs', async () => {
    const state = mkdtempSync(join(tmpdir(), 'agentd-state-'));
    const config = { ...CONFIG, history: { maxRuns: 4 } };
    const agentd = await startAgentd({
      args: ['--exposure', 'classic'],
      config,
      http: true,
      env: { XDG_STATE_HOME: state },
    });
    const c = await connect(agentd);
    try {
      const runIds: string[] = [];
      for (const word of ['one', 'two', 'three', 'four', 'five', 'six']) {
        const status = toolValue(await tool(c, 'command_subagent.spawn', { instruction: `echo ${word}` }));
        runIds.push(String(status.runId));
      }
      const failed = toolValue(await tool(c, 'command_subagent.spawn', { instruction: 'fail boom' }));
      const cli = (...args: string[]) => runCli([...args, '--socket', agentd.socket]);
      const read = async (query: string) =>
        JSON.parse(
          (await cli('runs', '--all', '--json', ...query.split(' ').filter(Boolean))).stdout,
        ) as Json;
      // Retention: four finished runs kept, the oldest gone first.
      const all = await read('');
      const listed = (all.runs as Json[]).map((r) => r.runId);
      expect(listed).toEqual([failed.runId, runIds[5], runIds[4], runIds[3]]);
      expect((all.runs as Json[])[0]).not.toHaveProperty('output');
      const onlyFailed = await read('--state failed');
      expect((onlyFailed.runs as Json[]).map((r) => r.runId)).toEqual([failed.runId]);
      expect((await read('--agent streamer')).runs).toEqual([]);
      expect((await read('--since 2999-01-01')).runs).toEqual([]);
      // Paging through the resource: two pages of two, no run twice.
      const first = resourceValue(await c.modernResult('resources/read', { uri: 'agent://runs?limit=2' }));
      expect((first.runs as Json[]).length).toBe(2);
      const rest = resourceValue(
        await c.modernResult('resources/read', {
          uri: `agent://runs?limit=2&cursor=${encodeURIComponent(String(first.nextCursor))}`,
        }),
      );
      expect([...(first.runs as Json[]), ...(rest.runs as Json[])].map((r) => r.runId)).toEqual(listed);
      expect(rest.nextCursor).toBeUndefined();
      const text = await cli('runs', '--all', '--state', 'succeeded');
      expect(text.stdout).toContain(runIds[5]);
      const bad = await cli('runs', '--state', 'failed');
      expect(bad.code).toBe(2);
      // An anonymous HTTP peer is restricted: the operator's runs are not in its history.
      const anonymous = await httpRequest(String(agentd.httpUrl), 'resources/read', { uri: 'agent://runs' });
      const contents = (anonymous.result as Json).contents as Json[];
      expect(JSON.parse(String(contents[0]?.text))).toEqual({ runs: [] });
    } finally {
      c.stream.end();
      await agentd.stop();
    }
  }, 60_000);

  it('logs --follow prints the whole output as it comes and exits when the run ends', async () => {
    const state = mkdtempSync(join(tmpdir(), 'agentd-state-'));
    const go = join(state, 'go');
    const config = {
      agents: {
        gated: {
          mode: 'plain',
          command: '/bin/sh',
          args: ['-c', `echo first; while [ ! -e '${go}' ]; do sleep 0.05; done; echo second`],
        },
      },
    };
    const agentd = await start(state, config);
    const c = await connect(agentd);
    try {
      const run = toolValue(
        await tool(c, 'command_subagent.spawn', { agent: 'gated', instruction: 'x', async: true }),
      );
      const follower = spawn(
        process.execPath,
        [CLI, 'logs', String(run.handle), '--follow', '--socket', agentd.socket],
        {
          env: cleanEnv(),
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      let out = '';
      follower.stdout.setEncoding('utf8');
      const sawFirst = new Promise<void>((resolve) =>
        follower.stdout.on('data', (chunk: string) => {
          out += chunk;
          if (out.includes('first')) resolve();
        }),
      );
      const exited = new Promise<number | null>((resolve) => follower.on('exit', (code) => resolve(code)));
      await sawFirst;
      writeFileSync(go, '');
      expect(await exited).toBe(0);
      expect(out).toBe('first\nsecond\n');
    } finally {
      c.stream.end();
      await agentd.stop();
    }
  }, 60_000);

  it('a restricted peer lists only the runs it started; an operator lists all', async () => {
    const peers = await startMixedPeers({ exposure: 'classic', agents: { example: TEST_AGENT_CONFIG } });
    const operator = await NdjsonClient.connect(peers.socket);
    try {
      await peers.stdio.initialize();
      const mine = toolValue(
        await peers.stdio.legacy('tools/call', {
          name: 'command_subagent.spawn',
          arguments: { instruction: 'echo of-stdio' },
        }),
      );
      const theirs = toolValue(
        await tool(operator, 'command_subagent.spawn', { instruction: 'echo of-operator' }),
      );
      const listed = async (read: Promise<Json>) =>
        (resourceValue(await read).runs as Json[]).map((r) => r.runId);
      expect(await listed(peers.stdio.legacy('resources/read', { uri: 'agent://runs' }))).toEqual([
        mine.runId,
      ]);
      expect(await listed(operator.modernResult('resources/read', { uri: 'agent://runs' }))).toEqual([
        theirs.runId,
        mine.runId,
      ]);
    } finally {
      operator.stream.end();
      await peers.stop();
    }
  }, 60_000);

  it('a second daemon on the same state directory is refused with the first one’s pid', async () => {
    const state = mkdtempSync(join(tmpdir(), 'agentd-state-'));
    const first = await start(state);
    try {
      await expect(start(state)).rejects.toThrow(new RegExp(`store_locked.*${first.proc.pid}`));
    } finally {
      await first.stop();
    }
  }, 30_000);
});

/**
 * End to end: the terminal's view of a fleet. Two real replicas share a real redis-server; a run
 * started on one is found by its run id and followed with `agentd attach` from the other.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { clusterBinariesAvailable, type RedisServer, startRedisServer } from '@agentd/cluster-harness';
import type { Json } from '@agentd/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Agentd, CLI, cleanEnv, runCli, startAgentd } from './support/agentd-process.js';

const runnable = clusterBinariesAvailable('agentd CLI fleet end-to-end tests', ['redis-server']);
const dir = mkdtempSync(join(tmpdir(), 'agentd-cli-fleet-'));
const go = join(dir, 'go');

const agents = {
  gated: {
    mode: 'plain',
    command: '/bin/sh',
    args: ['-c', `echo waiting; while [ ! -e '${go}' ]; do sleep 0.02; done; echo done`],
  },
};

let redis: RedisServer;
let owner: Agentd;
let other: Agentd;

describe.runIf(runnable)('the CLI across replicas', () => {
  beforeAll(async () => {
    redis = await startRedisServer();
    const replica = (id: string) =>
      startAgentd({
        config: { agents },
        args: ['--no-watch', '--instance-id', id],
        env: { AGENTD_REDIS_URL: redis.url },
      });
    [owner, other] = await Promise.all([replica('owner'), replica('other')]);
  });

  afterAll(async () => {
    await Promise.allSettled([owner?.stop(), other?.stop()]);
    await redis?.close();
  });

  it('attach on another replica finds the run by its run id and ends with its result', async () => {
    const started = await runCli([
      'spawn',
      '--json',
      '--async',
      '--socket',
      owner.socket,
      '--agent',
      'gated',
      'x',
    ]);
    const run = JSON.parse(started.stdout) as Json;
    const status = await runCli(['status', '--json', '--socket', other.socket, String(run.runId)]);
    expect(status.code).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({ handle: run.handle, instance: 'owner' });
    const attach = spawn(process.execPath, [CLI, 'attach', '--socket', other.socket, String(run.runId)], {
      env: cleanEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    attach.stdout.on('data', (c: Buffer) => {
      stdout += c.toString();
    });
    const attached = new Promise<void>((resolve) =>
      attach.stderr.on('data', (c: Buffer) => {
        stderr += c.toString();
        if (stderr.includes('attached to run')) resolve();
      }),
    );
    const [code] = (
      await Promise.all([once(attach, 'close'), attached.then(() => writeFileSync(go, ''))])
    )[0];
    expect(code).toBe(0);
    // The lines stay on the owner's replica; the result is shared.
    expect(stdout).toBe('waiting\ndone\n');
    expect(stderr).toContain(`attached to run ${String(run.runId)} (gated, running)`);
    expect(stderr).toContain(`succeeded  gated  ${String(run.runId)}`);
  });
});

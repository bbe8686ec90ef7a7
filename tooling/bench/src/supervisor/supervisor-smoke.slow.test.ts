/** Smoke run of the built supervisor case, tiny: every run succeeds, every event arrives on every side (no speed is asserted). */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const RUN_JS = fileURLToPath(new URL('../../dist/supervisor/run-supervisor.js', import.meta.url));

interface Side {
  events: number;
  p50Ms: number;
  rssPerRunBytes: number;
  readsPerEvent: number;
  writesPerEvent: number;
}

it('streams 3 runs × 5 events through agentd, the relay and the floor, and reports ratios', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'agentd-bench-supervisor-smoke-'));
  try {
    const json = join(dir, 'out.json');
    const args = [RUN_JS, '--runs', '3', '--events', '5', '--interval', '1', '--reps', '1', '--lead', '300'];
    const stdout = await new Promise<string>((resolve, reject) => {
      execFile(process.execPath, [...args, '--json', json], { timeout: 60_000 }, (error, out, stderr) =>
        error === null ? resolve(out) : reject(new Error(`${error.message}\n${stderr}`)),
      );
    });
    expect(stdout).toMatch(/ratios agentd\/floor: p50 [\d.]+x/);
    expect(stdout).toMatch(/agentd\/two-hop floor: p50 [\d.]+x/);
    const report = JSON.parse(await readFile(json, 'utf8')) as Record<'floor' | 'relay' | 'agentd', Side>;
    const { floor, relay, agentd } = report;
    // Every side saw all 15 events, each with a latency (wall clocks of one machine: non-negative).
    for (const side of [floor, relay, agentd]) {
      expect(side.events).toBe(15);
      expect(side.p50Ms).toBeGreaterThanOrEqual(0);
    }
    expect(Number.isFinite(agentd.rssPerRunBytes)).toBe(true);
    // The kernel counts are read from /proc while streaming: the floor read its agents' lines, the
    // daemon read them and wrote the notifications on.
    expect(floor.readsPerEvent).toBeGreaterThan(0);
    expect(agentd.readsPerEvent).toBeGreaterThan(0);
    expect(agentd.writesPerEvent).toBeGreaterThan(0);
    // The relay wrote each event on and appended it to its run's log, as agentd's history does.
    expect(relay.writesPerEvent).toBeGreaterThan(1.5);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}, 90_000);

/** The run store against real child processes: `kill -9` mid-stream, and the lock between two processes. */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LocalError } from '@agentd/rpc-frame';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoredEvent } from './history-types.js';
import { openRunStore } from './run-store-file.js';
import { captureLogger } from './test-support/capture-logger.js';
import { canMount, withTinyDisk } from './test-support/tiny-disk.js';

let work: string;
let child: string;

// The child writes run `run_k9` in a loop: events of varied size (some large, so a kill can cut a
// write in two), and after each flush prints the last sequence number it knows is written.
const CHILD = `
import { openRunStore } from './store.mjs';
const silent = { debug() {}, info() {}, warn() {}, error() {} };
const store = await openRunStore({ dir: process.argv[2], logger: silent });
const mode = process.argv[3];
if (mode === 'hold') {
  process.stdout.write('open\\n');
  setInterval(() => {}, 1000);
} else {
  store.recordRun({ handle: 'sa_k9', runId: 'run_k9', agent: 'a', state: 'running', startedAt: new Date().toISOString() });
  let i = 0;
  for (;;) {
    const batch = 1 + (i % 7);
    for (let b = 0; b < batch; b++) {
      i++;
      const size = i % 5 === 0 ? 200000 : 10 + (i % 300);
      store.appendEvent('run_k9', { type: 'message', text: String(i).padEnd(size, '.'), i });
    }
    await store.flush();
    process.stdout.write(i + '\\n');
  }
}
`;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'agentd-history-slow-'));
  await build({
    entryPoints: [fileURLToPath(new URL('./run-store-file.ts', import.meta.url))],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    conditions: ['@agentd/source'],
    outfile: join(work, 'store.mjs'),
    logLevel: 'silent',
  });
  child = join(work, 'child.mjs');
  await writeFile(child, CHILD);
});

afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

/** Starts the child and resolves once `ready(line)` holds for a line of its output. */
function start(
  dir: string,
  mode: string,
  ready: (line: string) => boolean,
): Promise<{ proc: ChildProcess; last: () => string }> {
  const proc = spawn(process.execPath, [child, dir, mode], { stdio: ['ignore', 'pipe', 'inherit'] });
  let last = '';
  let buffered = '';
  return new Promise((resolve, reject) => {
    proc.once('exit', (code, signal) => reject(new Error(`child exited early: ${code ?? signal}`)));
    proc.stdout?.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines) {
        last = line;
        if (ready(line)) resolve({ proc, last: () => last });
      }
    });
  });
}

function killed(proc: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (proc.exitCode !== null || proc.signalCode !== null) resolve();
    else {
      proc.removeAllListeners('exit');
      proc.once('exit', () => resolve());
      proc.kill('SIGKILL');
    }
  });
}

describe('kill -9', () => {
  for (const target of [40, 400, 1500]) {
    it(`keeps every event written before the kill (killed after ${target} events)`, async () => {
      const dir = join(work, `kill-${target}`);
      const running = await start(dir, 'write', (line) => Number(line) >= target);
      running.proc.stdout?.removeAllListeners('data');
      // Acknowledged writes: everything up to the last line read before the kill.
      const acked = Number(running.last());
      await killed(running.proc);

      const logger = captureLogger();
      const store = await openRunStore({ dir, logger });
      const lost = await store.markLiveRunsLost();
      expect(lost.map((r) => r.runId)).toEqual(['run_k9']);
      const events: StoredEvent[] = [];
      let after = 0;
      for (;;) {
        const page = await store.events('run_k9', { after, limit: 500 });
        events.push(...page.events);
        if (page.next === undefined) break;
        after = page.next;
      }
      // A prefix with no gap: the kill loses at most what was being written, never an earlier event.
      expect(events.length).toBeGreaterThanOrEqual(acked);
      events.forEach((stored, k) => {
        expect(stored.seq).toBe(k + 1);
        expect(stored.event.i).toBe(k + 1);
        expect(String(stored.event.text).startsWith(String(k + 1))).toBe(true);
      });
      expect(logger.lines.filter((l) => l.level === 'error')).toEqual([]);
      expect(await store.get('sa_k9')).toMatchObject({ state: 'lost', terminal: true });
      await store.close();
    });
  }
});

describe('the lock', () => {
  it('refuses a second opener with the first one’s pid, and takes over once that one is dead', async () => {
    const dir = join(work, 'lock');
    const holder = await start(dir, 'hold', (line) => line === 'open');
    const pid = holder.proc.pid as number;
    const refused = await openRunStore({ dir, logger: captureLogger() }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(LocalError);
    expect(refused).toMatchObject({ code: 'store_locked' });
    expect((refused as Error).message).toContain(`pid ${pid}`);

    await killed(holder.proc);
    const store = await openRunStore({ dir, logger: captureLogger() });
    expect(store.info().keeping).toBe(true);
    const again = await openRunStore({ dir, logger: captureLogger() }).catch((error: unknown) => error);
    expect((again as Error).message).toContain(`pid ${process.pid}`);
    await store.close();
    // Released on close: the next opener gets it at once.
    await (await openRunStore({ dir, logger: captureLogger() })).close();
  });
});

describe('a disk that fills up', () => {
  // A real full disk needs a small file system: a tmpfs, where this user may mount one.
  it.skipIf(!canMount())(
    'reports once, never throws, keeps whole events only, and resumes once there is room',
    async () => {
      const disk = join(work, 'tiny');
      await mkdir(disk);
      await withTinyDisk(disk, '512k', async () => {
        await writeFile(join(disk, 'filler'), Buffer.alloc(200 * 1024));
        const dir = join(disk, 'state');
        const logger = captureLogger();
        const store = await openRunStore({ dir, logger });
        store.recordRun({
          handle: 'sa_f',
          runId: 'run_f',
          agent: 'a',
          state: 'running',
          startedAt: new Date().toISOString(),
        });
        let i = 0;
        while (store.info().keeping) {
          i++;
          store.appendEvent('run_f', { type: 'message', text: 'x'.repeat(7000 + i), i });
          await store.flush();
        }
        for (let k = 0; k < 5; k++) {
          store.appendEvent('run_f', { type: 'message', text: 'y'.repeat(50_000), i: -1 });
          await store.flush();
        }
        expect(logger.lines.filter((l) => l.level === 'error')).toHaveLength(1);
        expect(logger.lines[0]?.msg).toMatch(/history is not being kept/);

        await unlink(join(disk, 'filler'));
        store.appendEvent('run_f', { type: 'message', text: 'after', i: 0 });
        await store.flush();
        expect(store.info().keeping).toBe(true);
        await store.close();

        const again = await openRunStore({ dir, logger: captureLogger() });
        const events = (await again.events('run_f', { limit: 10_000 })).events;
        expect(events.map((e) => e.seq)).toEqual(Array.from({ length: events.length }, (_, k) => k + 1));
        expect(events.at(-1)?.event).toMatchObject({ text: 'after' });
        expect(events.slice(0, -1).map((e) => e.event.i)).toEqual(
          Array.from({ length: events.length - 1 }, (_, k) => k + 1),
        );
        await again.close();
      });
    },
  );
});

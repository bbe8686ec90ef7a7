/** The run store on real files: round trips, pages, damage, retention and a disk that refuses writes. */
import {
  appendFile,
  mkdtemp,
  readdir,
  readFile,
  rm,
  stat,
  symlink,
  unlink,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalError } from '@agentd/rpc-frame';
import { afterEach, describe, expect, it } from 'vitest';
import { defaultStateDir } from './history-config.js';
import type { RunStore, StoredRecord } from './history-types.js';
import { openRunStore } from './run-store-file.js';
import { captureLogger } from './test-support/capture-logger.js';

const open: RunStore[] = [];
const dirs: string[] = [];
/** Recent enough that the 30-day retention keeps every test run. */
const BASE = Date.now() - 24 * 60 * 60 * 1000;

afterEach(async () => {
  for (const store of open.splice(0)) await store.close();
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'agentd-history-'));
  dirs.push(dir);
  return join(dir, 'state');
}

async function storeAt(dir: string, retention = {}) {
  const logger = captureLogger();
  const store = await openRunStore({ dir, retention, logger });
  open.push(store);
  return { store, logger };
}

async function reopen(store: RunStore, retention = {}) {
  await store.close();
  open.splice(open.indexOf(store), 1);
  return storeAt(store.dir, retention);
}

function run(n: number, fields: Partial<StoredRecord> = {}): StoredRecord {
  return {
    handle: `sa_handle${n}`,
    runId: `run_${String(n).padStart(5, '0')}`,
    agent: n % 2 === 0 ? 'even' : 'odd',
    mode: 'protocol',
    state: 'succeeded',
    terminal: true,
    startedAt: new Date(BASE + n * 60_000).toISOString(),
    endedAt: new Date(BASE + n * 60_000 + 1000).toISOString(),
    turns: 1,
    result: { text: `answer ${n}` },
    output: `answer ${n}`,
    ...fields,
  };
}

describe('records and events', () => {
  it('keeps records and whole event logs across a restart, found by run id or handle', async () => {
    const { store } = await storeAt(await tempDir());
    store.recordRun(run(1, { state: 'running', terminal: false, endedAt: undefined as never }));
    for (let i = 1; i <= 2500; i++)
      store.appendEvent('run_00001', { type: 'message', text: `line ${i}`, stream: 'stdout' });
    store.recordRun(run(1, { usage: { inputTokens: 3 }, owner: 'alice' }));
    const { store: again } = await reopen(store);

    const record = await again.get('run_00001');
    expect(record).toMatchObject({
      state: 'succeeded',
      result: { text: 'answer 1' },
      usage: { inputTokens: 3 },
    });
    expect(await again.get('sa_handle1')).toEqual(record);
    expect(await again.get('run_nope')).toBeUndefined();

    const seen: number[] = [];
    let after = 0;
    for (;;) {
      const page = await again.events('run_00001', { after, limit: 1000 });
      for (const e of page.events) {
        expect(e.event).toEqual({ type: 'message', text: `line ${e.seq}`, stream: 'stdout' });
        seen.push(e.seq);
      }
      if (page.next === undefined) break;
      after = page.next;
    }
    expect(seen).toEqual(Array.from({ length: 2500 }, (_, i) => i + 1));
    // A continued run numbers its new events after the old ones.
    again.appendEvent('run_00001', { type: 'turn_end', turn: 2, stopReason: 'end_turn', text: '' });
    const tail = await again.events('run_00001', { after: 2500 });
    expect(tail.events.map((e) => e.seq)).toEqual([2501]);
  });

  it('writes its directory 0700 and its files 0600', async () => {
    const dir = await tempDir();
    const { store } = await storeAt(dir);
    store.recordRun(run(1));
    store.appendEvent('run_00001', { type: 'message', text: 'hi' });
    await store.flush();
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
    expect((await stat(join(dir, 'history', 'index.jsonl'))).mode & 0o777).toBe(0o600);
    expect((await stat(join(dir, 'history', 'events', 'run_00001.jsonl'))).mode & 0o777).toBe(0o600);
    expect((await stat(join(dir, 'agentd.lock'))).mode & 0o777).toBe(0o600);
  });

  it('ends runs left live as lost, with the events they had', async () => {
    const { store } = await storeAt(await tempDir());
    store.recordRun(run(1, { state: 'running', terminal: false, pid: 4242, endedAt: undefined as never }));
    store.recordRun(run(2));
    store.appendEvent('run_00001', { type: 'message', text: 'before the restart' });
    const { store: again } = await reopen(store);
    const lost = await again.markLiveRunsLost(new Date('2026-02-01T00:00:00Z'));
    expect(lost.map((r) => r.runId)).toEqual(['run_00001']);
    const record = await again.get('sa_handle1');
    expect(record).toMatchObject({
      state: 'lost',
      terminal: true,
      endedAt: '2026-02-01T00:00:00.000Z',
      error: { code: 'lost' },
    });
    expect(record?.pid).toBeUndefined();
    expect((await again.get('run_00002'))?.state).toBe('succeeded');
    expect((await again.events('run_00001')).events.map((e) => e.event.text)).toEqual(['before the restart']);
    expect(await again.markLiveRunsLost()).toEqual([]);
  });

  it('answers from memory before the write and after it alike', async () => {
    const { store } = await storeAt(await tempDir());
    store.recordRun(run(7));
    expect((await store.get('run_00007'))?.output).toBe('answer 7');
    await store.flush();
    expect((await store.get('run_00007'))?.output).toBe('answer 7');
    expect(store.info()).toMatchObject({ runs: 1, keeping: true });
  });

  it('follows a run whose handle changed (a conversation resumed under a new handle)', async () => {
    const { store } = await storeAt(await tempDir());
    store.recordRun(run(1));
    store.appendEvent('run_00001', { type: 'message', text: 'x' });
    await store.flush();
    const bytes = store.info().bytes;
    store.recordRun(run(1, { handle: 'sa_new' }));
    expect(await store.get('sa_handle1')).toBeUndefined();
    expect((await store.get('sa_new'))?.runId).toBe('run_00001');
    store.appendEvent('run_00001', { type: 'message', text: 'y' });
    await store.flush();
    expect(store.info().bytes).toBeGreaterThan(bytes);
    // The size it counts is the size on disk: the re-keyed run's log is counted once.
    const history = join(store.dir, 'history');
    const onDisk =
      (await stat(join(history, 'index.jsonl'))).size +
      (await stat(join(history, 'events', 'run_00001.jsonl'))).size;
    expect(store.info().bytes).toBe(onDisk);
    const { store: again } = await reopen(store);
    expect((await again.get('sa_new'))?.runId).toBe('run_00001');
    expect((await again.list()).runs).toHaveLength(1);
  });

  it('ignores bad input without throwing', async () => {
    const { store, logger } = await storeAt(await tempDir());
    store.recordRun({ runId: 'run_x' } as StoredRecord);
    store.recordRun(run(1, { runId: '../escape' }));
    store.appendEvent('../escape', { type: 'message', text: 'x' });
    await store.flush();
    expect((await store.list()).runs).toEqual([]);
    expect(logger.lines.filter((l) => l.level === 'warn')).toHaveLength(3);
    expect(await readdir(join(store.dir, 'history', 'events'))).toEqual([]);
  });
});

describe('list', () => {
  it('pages newest first with filters, summaries without the output', async () => {
    const { store } = await storeAt(await tempDir());
    for (let n = 1; n <= 25; n++) {
      store.recordRun(
        run(n, {
          owner: n <= 5 ? 'alice' : 'bob',
          state: n % 5 === 0 ? 'failed' : 'succeeded',
          ...(n === 13 ? { error: { message: 'The Needle broke' } } : {}),
        }),
      );
    }
    const { store: again } = await reopen(store);

    const ids: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await again.list({ limit: 10, ...(cursor === undefined ? {} : { cursor }) });
      ids.push(...page.runs.map((r) => r.runId));
      for (const r of page.runs) {
        expect(r.result).toBeUndefined();
        expect(r.output).toBeUndefined();
      }
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    expect(ids).toEqual(Array.from({ length: 25 }, (_, i) => `run_${String(25 - i).padStart(5, '0')}`));

    expect((await again.list({ agent: 'even', state: 'failed' })).runs.map((r) => r.runId)).toEqual([
      'run_00020',
      'run_00010',
    ]);
    expect((await again.list({ owner: 'alice' })).runs).toHaveLength(5);
    expect((await again.list({ since: new Date(BASE + 23 * 60_000) })).runs).toHaveLength(3);
    expect((await again.list({ text: 'needle' })).runs.map((r) => r.runId)).toEqual(['run_00013']);
    expect((await again.list({ text: 'answer 21' })).runs.map((r) => r.runId)).toEqual(['run_00021']);
    const first = await again.list({ limit: 2, owner: 'alice' });
    expect(
      (await again.list({ limit: 10, owner: 'alice', cursor: first.nextCursor as string })).runs,
    ).toHaveLength(3);
    await expect(again.list({ cursor: 'nonsense' })).rejects.toThrow(LocalError);
  });
});

describe('damaged files', () => {
  it('cuts a partial last event and keeps every whole one', async () => {
    const { store } = await storeAt(await tempDir());
    store.recordRun(run(1, { state: 'running', terminal: false, endedAt: undefined as never }));
    for (let i = 1; i <= 10; i++) store.appendEvent('run_00001', { type: 'message', text: `e${i}` });
    await store.close();
    open.length = 0;
    const path = join(store.dir, 'history', 'events', 'run_00001.jsonl');
    await appendFile(path, '1a2b3c4d {"seq":11,"at":"2026-01-01T00:00:00Z","ev');

    const { store: again, logger } = await storeAt(store.dir);
    await again.markLiveRunsLost();
    expect((await again.events('run_00001')).events.map((e) => e.seq)).toEqual([
      1, 2, 3, 4, 5, 6, 7, 8, 9, 10,
    ]);
    expect(logger.lines).toContainEqual(
      expect.objectContaining({ level: 'warn', fields: expect.objectContaining({ path }) }),
    );
    again.appendEvent('run_00001', { type: 'message', text: 'after' });
    expect((await again.events('run_00001', { after: 10 })).events).toMatchObject([
      { seq: 11, event: { text: 'after' } },
    ]);
  });

  it('sets a corrupted index aside in corrupt/, keeps its good records and opens', async () => {
    const { store } = await storeAt(await tempDir());
    for (let n = 1; n <= 3; n++) store.recordRun(run(n));
    await store.close();
    open.length = 0;
    const path = join(store.dir, 'history', 'index.jsonl');
    const text = await readFile(path, 'utf8');
    await writeFile(path, text.replace('answer 2', 'answer X'));

    const { store: again, logger } = await storeAt(store.dir);
    expect(logger.lines).toContainEqual(
      expect.objectContaining({ level: 'error', fields: expect.objectContaining({ path }) }),
    );
    const aside = await readdir(join(store.dir, 'history', 'corrupt'));
    expect(aside).toHaveLength(1);
    expect(aside[0]).toMatch(/^index\.jsonl\./);
    expect((await again.list()).runs.map((r) => r.runId)).toEqual(['run_00003', 'run_00001']);
    again.recordRun(run(4));
    const { store: third } = await reopen(again);
    expect((await third.list()).runs).toHaveLength(3);
  });

  it('sets aside a corrupted event log and keeps its good events', async () => {
    const { store } = await storeAt(await tempDir());
    store.recordRun(run(1));
    for (let i = 1; i <= 5; i++) store.appendEvent('run_00001', { type: 'message', text: `e${i}` });
    await store.close();
    open.length = 0;
    const path = join(store.dir, 'history', 'events', 'run_00001.jsonl');
    await writeFile(path, (await readFile(path, 'utf8')).replace('"e3"', '"E3"'));

    const { store: again, logger } = await storeAt(store.dir);
    again.appendEvent('run_00001', { type: 'message', text: 'e6' });
    const events = (await again.events('run_00001')).events;
    expect(events.map((e) => e.event.text)).toEqual(['e1', 'e2', 'e4', 'e5', 'e6']);
    expect(logger.lines).toContainEqual(
      expect.objectContaining({ level: 'error', fields: expect.objectContaining({ path }) }),
    );
    expect(await readdir(join(store.dir, 'history', 'corrupt'))).toHaveLength(1);
  });

  it('sets aside an index that is not a run store index', async () => {
    const dir = await tempDir();
    const { store } = await storeAt(dir);
    await store.close();
    open.length = 0;
    await writeFile(join(dir, 'history', 'index.jsonl'), 'hello, this is not ours\n');
    const { store: again, logger } = await storeAt(dir);
    expect(logger.lines.some((l) => l.level === 'error')).toBe(true);
    expect(await readdir(join(dir, 'history', 'corrupt'))).toHaveLength(1);
    again.recordRun(run(1));
    expect((await (await reopen(again)).store.list()).runs).toHaveLength(1);
  });
});

describe('retention', () => {
  it('removes the oldest finished runs past maxRuns, never a live one', async () => {
    const { store } = await storeAt(await tempDir(), { maxRuns: 3 });
    store.recordRun(run(1, { state: 'running', terminal: false, endedAt: undefined as never }));
    for (let n = 2; n <= 6; n++) {
      store.recordRun(run(n));
      store.appendEvent(run(n).runId, { type: 'message', text: 'x' });
    }
    await store.flush();
    expect((await store.list()).runs.map((r) => r.runId)).toEqual([
      'run_00006',
      'run_00005',
      'run_00004',
      'run_00001',
    ]);
    expect((await readdir(join(store.dir, 'history', 'events'))).sort()).toEqual([
      'run_00004.jsonl',
      'run_00005.jsonl',
      'run_00006.jsonl',
    ]);
    const { store: again } = await reopen(store, { maxRuns: 3 });
    expect((await again.list()).runs).toHaveLength(4);
    const { store: smaller } = await reopen(again, { maxRuns: 1 });
    expect((await smaller.list()).runs.map((r) => r.runId)).toEqual(['run_00006', 'run_00001']);
  });

  it('removes runs that ended more than maxAgeDays ago at start', async () => {
    const { store } = await storeAt(await tempDir());
    const day = 24 * 60 * 60 * 1000;
    const now = Date.now();
    store.recordRun(
      run(1, {
        startedAt: new Date(now - 40 * day).toISOString(),
        endedAt: new Date(now - 40 * day).toISOString(),
      }),
    );
    store.recordRun(
      run(2, {
        startedAt: new Date(now - 20 * day).toISOString(),
        endedAt: new Date(now - 20 * day).toISOString(),
      }),
    );
    store.recordRun(
      run(3, { startedAt: new Date(now - 1 * day).toISOString(), endedAt: new Date(now).toISOString() }),
    );
    const { store: again } = await reopen(store, { maxAgeDays: 10 });
    expect((await again.list()).runs.map((r) => r.runId)).toEqual(['run_00003']);
  });

  it('removes the oldest runs past maxBytes', async () => {
    const { store } = await storeAt(await tempDir(), { maxBytes: 300_000 });
    for (let n = 1; n <= 5; n++) {
      store.recordRun(run(n));
      store.appendEvent(run(n).runId, { type: 'message', text: 'x'.repeat(100_000) });
      await store.flush();
    }
    expect((await store.list()).runs.map((r) => r.runId)).toEqual(['run_00005', 'run_00004']);
    expect(store.info().bytes).toBeLessThanOrEqual(300_000);
  });
});

describe('a disk that refuses writes', () => {
  it('keeps runs going when the state directory cannot be made, and says so once', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, '..', 'file'), 'not a directory');
    const { store, logger } = await storeAt(join(dir, '..', 'file', 'state'));
    store.recordRun(run(1));
    store.appendEvent('run_00001', { type: 'message', text: 'x' });
    await store.flush();
    expect(await store.get('sa_handle1')).toMatchObject({ state: 'succeeded' });
    expect(await store.events('run_00001')).toEqual({ events: [] });
    expect(store.info().keeping).toBe(false);
    expect(logger.lines.filter((l) => l.level === 'error')).toHaveLength(1);
    expect(logger.lines[0]?.msg).toMatch(/history is not being kept/);
  });

  it('reports a full disk once, does not throw, and resumes when writes work again', async () => {
    const { store, logger } = await storeAt(await tempDir());
    store.recordRun(run(1, { state: 'running', terminal: false, endedAt: undefined as never }));
    await store.flush();
    const path = join(store.dir, 'history', 'events', 'run_00001.jsonl');
    await symlink('/dev/full', path);
    for (let i = 0; i < 5; i++) {
      store.appendEvent('run_00001', { type: 'message', text: `lost ${i}` });
      await store.flush();
    }
    const errors = logger.lines.filter((l) => l.level === 'error');
    expect(errors).toHaveLength(1);
    expect(errors[0]?.fields).toMatchObject({ path });
    expect(store.info().keeping).toBe(false);

    await unlink(path);
    store.recordRun(run(2));
    store.appendEvent('run_00002', { type: 'message', text: 'kept' });
    await store.flush();
    expect(store.info().keeping).toBe(true);
    expect((await store.events('run_00002')).events).toHaveLength(1);
  });
});

describe('the lock', () => {
  it('takes over a lock naming its own pid that it does not hold (a previous life in a container)', async () => {
    const dir = await tempDir();
    const { store } = await storeAt(dir);
    await store.close();
    open.length = 0;
    await writeFile(join(dir, 'agentd.lock'), `${process.pid}\n`);
    const { store: again } = await storeAt(dir);
    expect(again.info().keeping).toBe(true);
    const second = await openRunStore({ dir, logger: captureLogger() }).catch((error: unknown) => error);
    expect(second).toMatchObject({ code: 'store_locked' });
  });
});

describe('defaultStateDir', () => {
  it('follows XDG_STATE_HOME, else ~/.local/state', () => {
    expect(defaultStateDir({ XDG_STATE_HOME: '/var/state' })).toBe('/var/state/agentd');
    expect(defaultStateDir({ XDG_STATE_HOME: 'relative' })).toMatch(/\/\.local\/state\/agentd$/);
    expect(defaultStateDir({})).toMatch(/\/\.local\/state\/agentd$/);
  });
});

/**
 * No test waits on the clock: every fixed sleep and hand-rolled polling helper in the workspace's
 * test code is listed as file:line unless it carries the `sleep-is-the-point:` marker, and the
 * marked ones stay a handful.
 */
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { fixedSleeps, pollingHelpers, SLEEP_MARKER } from './fixed-sleeps.js';
import { testFiles } from './test-files.js';

/** "At most a handful of sleeps left where the duration is the point" (issue 25). */
const MAX_MARKED_SLEEPS = 10;
const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

describe('fixedSleeps', () => {
  it('finds awaited timers under any name and timer-resolved promises', () => {
    const code = [
      "import { setTimeout as snooze } from 'node:timers/promises';",
      'await setTimeout(50);',
      'await snooze(10);',
      'await sleep(5);',
      'await new Promise((r) => setTimeout(r, 20));',
      'await new Promise<void>((done) => setTimeout(() => done(), 20));',
      'await new Promise((resolve) => {',
      '  setTimeout(resolve, 20);',
      '});',
    ].join('\n');
    expect(fixedSleeps(code).map((s) => s.line)).toEqual([2, 3, 4, 5, 6, 8]);
  });

  it('leaves events, deadlines, fake timers and comments alone', () => {
    const code = [
      "await once(child, 'exit');",
      "const deadline = new Promise((_, reject) => setTimeout(() => reject(new Error('late')), 5_000));",
      'const timer = setTimeout(() => controller.abort(), 1_000);',
      'await vi.advanceTimersByTimeAsync(1_000);',
      "await vi.waitFor(() => expect(log).toContain('ready'), { timeout: 10_000 });",
      '// await setTimeout(50) was here',
    ].join('\n');
    expect(fixedSleeps(code)).toEqual([]);
  });

  it('accepts a sleep whose duration is the point when it says so on its line or just above', () => {
    const code = [
      `// ${SLEEP_MARKER} nothing may arrive in the next 200 ms`,
      'await setTimeout(200);',
      'await setTimeout(5);',
      `await sleep(300); // ${SLEEP_MARKER} the idle timeout must not fire early`,
    ].join('\n');
    expect(fixedSleeps(code).map((s) => [s.line, s.marked])).toEqual([
      [2, true],
      [3, true],
      [4, true],
    ]);
    expect(fixedSleeps(['x', 'y', 'z', 'w', 'await setTimeout(5);'].join('\n'))[0]?.marked).toBe(false);
  });

  it('lists a marked helper once, where it sleeps, and not its calls', () => {
    const code = [
      `// ${SLEEP_MARKER} a handler that takes as long as the client asked`,
      'function sleep(ms: number): Promise<void> {',
      '  return new Promise((resolve) => {',
      '    const timer = setTimeout(resolve, ms);',
      '  });',
      '}',
      'await sleep(50);',
      'await delay(5);',
    ].join('\n');
    expect(fixedSleeps(code).map((s) => [s.line, s.marked])).toEqual([
      [4, true],
      [8, false],
    ]);
  });
});

describe('pollingHelpers', () => {
  it('finds a helper that re-arms a timer on itself, and one that loops over an awaited sleep', () => {
    const code = [
      'function waitUntil(test: () => boolean): Promise<void> {',
      '  return new Promise((resolve) => {',
      '    const tick = (): void => {',
      '      if (test()) resolve();',
      '      else setTimeout(tick, 5);',
      '    };',
      '    tick();',
      '  });',
      '}',
      'async function until(ready: () => boolean): Promise<void> {',
      '  while (!ready()) await new Promise((r) => setTimeout(r, 10));',
      '}',
      'const poll = async (check: () => Promise<boolean>) => {',
      '  for (;;) {',
      '    if (await check()) return;',
      '    await sleep(20);',
      '  }',
      '};',
      'const look = (): void => server.getConnections((_e, n) => (n > 0 ? done() : setTimeout(look, 5)));',
    ].join('\n');
    expect(pollingHelpers(code).map((p) => [p.line, p.text])).toEqual([
      [3, 'const tick = (): void => {'],
      [10, 'async function until(ready: () => boolean): Promise<void> {'],
      [13, 'const poll = async (check: () => Promise<boolean>) => {'],
      [
        19,
        'const look = (): void => server.getConnections((_e, n) => (n > 0 ? done() : setTimeout(look, 5)));',
      ],
    ]);
  });

  it('leaves events, vi.waitFor wrappers, deadlines, stream reads and paced marked sleeps alone', () => {
    const code = [
      'async function until(check: () => boolean, what: string): Promise<void> {',
      '  await vi.waitFor(() => expect(check(), what).toBe(true), { timeout: 10_000, interval: 10 });',
      '}',
      'async function drain(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<string> {',
      "  let text = '';",
      '  for (;;) {',
      '    const chunk = await reader.read();',
      '    if (chunk.done) return text;',
      '    text += chunk.value;',
      '  }',
      '}',
      'function deadline(ms: number): Promise<never> {',
      "  return new Promise((_, reject) => setTimeout(() => reject(new Error('late')), ms));",
      '}',
      `// ${SLEEP_MARKER} a tool whose work takes time`,
      'function sleep(ms: number): Promise<void> {',
      '  return new Promise((resolve) => setTimeout(resolve, ms));',
      '}',
      'async function progress(report: (n: number) => void): Promise<void> {',
      '  for (const n of [0, 50, 100]) {',
      '    report(n);',
      '    await sleep(5);',
      '  }',
      '}',
    ].join('\n');
    expect(pollingHelpers(code)).toEqual([]);
  });

  it('accepts a polling helper marked on its first line or just above, or around it', () => {
    const code = [
      `// ${SLEEP_MARKER} the probe itself is what is measured`,
      'function probe(): Promise<void> {',
      '  return new Promise((resolve) => {',
      '    const again = () => (ready() ? resolve() : setTimeout(again, 5));',
      '    again();',
      '  });',
      '}',
      'async function until(ready: () => boolean): Promise<void> {',
      '  while (!ready()) await setTimeout(10);',
      '}',
    ].join('\n');
    expect(pollingHelpers(code).map((p) => [p.line, p.marked])).toEqual([
      [4, true],
      [8, false],
    ]);
  });
});

describe('the workspace test code', () => {
  // This file's own samples are not sleeps.
  const self = 'tooling/scripts/src/fixed-sleeps.test.ts';
  const sleeps = testFiles(root)
    .filter((file) => file !== self)
    .flatMap((file) =>
      fixedSleeps(readFileSync(join(root, file), 'utf8')).map((sleep) => ({ file, ...sleep })),
    );
  const pollers = testFiles(root)
    .filter((file) => file !== self)
    .flatMap((file) =>
      pollingHelpers(readFileSync(join(root, file), 'utf8')).map((poller) => ({ file, ...poller })),
    );
  const list = (items: typeof sleeps) => items.map((s) => `${s.file}:${s.line}  ${s.text}`).join('\n');

  it('has no fixed sleep used as a wait', () => {
    const unmarked = sleeps.filter((s) => !s.marked);
    expect(
      unmarked.length,
      `${unmarked.length} fixed sleeps in test code: wait on the event instead (once(), a promise, ` +
        `vi.waitFor with a message, fake timers), or mark a sleep whose duration is the point with ` +
        `"// ${SLEEP_MARKER} why":\n${list(unmarked)}`,
    ).toBe(0);
  });

  it('has no hand-rolled polling helper', () => {
    const unmarked = pollers.filter((p) => !p.marked);
    expect(
      unmarked.length,
      `${unmarked.length} polling helpers in test code: wait on the event instead (once(), a promise, ` +
        `a stream's 'data'), or vi.waitFor(() => expect(…, 'what is awaited')…, { timeout, interval }):\n` +
        list(unmarked),
    ).toBe(0);
  });

  it(`keeps at most ${MAX_MARKED_SLEEPS} sleeps whose duration is the point`, () => {
    const marked = [...sleeps, ...pollers].filter((s) => s.marked);
    expect(marked.length, `marked sleeps:\n${list(marked)}`).toBeLessThanOrEqual(MAX_MARKED_SLEEPS);
  });
});

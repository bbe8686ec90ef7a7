/** A protocol agent's stderr against real children: streamed as stderr log events and kept in the bounded tail. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TAIL_LINES } from './output-lines.js';
import { disposeAll, makeSupervisor, testProfiles } from './test-support/fixtures.js';
import type { AgentEvent, AgentProfile } from './types.js';

afterEach(disposeAll);

/**
 * A protocol agent: on `run` it writes `before` to stderr, waits for the file `go` (when given),
 * writes `after` to stderr and answers. Its stdout carries only the protocol.
 */
function stderrAgent(name: string, before: string, after: string, go?: string): AgentProfile {
  const script = `
    const { existsSync } = require('node:fs');
    const rl = require('node:readline').createInterface({ input: process.stdin });
    const send = (m) => process.stdout.write(JSON.stringify({ jsonrpc: '2.0', ...m }) + '\\n');
    rl.on('line', (line) => {
      const request = JSON.parse(line);
      if (request.method !== 'run') return;
      process.stderr.write(${JSON.stringify(before)});
      send({ method: 'event', params: { type: 'log', level: 'info', message: 'own log event' } });
      const finish = () => {
        process.stderr.write(${JSON.stringify(after)});
        send({ id: request.id, result: { text: 'done' } });
      };
      const go = ${JSON.stringify(go ?? null)};
      // The child polls for the test's file: the test itself waits on events only.
      const wait = () => (go === null || existsSync(go) ? finish() : setTimeout(wait, 20));
      wait();
    });`;
  return { name, mode: 'protocol', command: process.execPath, args: ['-e', script] };
}

describe('protocol mode stderr', () => {
  it('streams each stderr line as a stderr log event and tails it, while the run goes on', async () => {
    const go = join(mkdtempSync(join(tmpdir(), 'agentd-protocol-')), 'go');
    const supervisor = makeSupervisor({
      profiles: [...testProfiles(), stderrAgent('talker', 'warming up\npart', 'ial line\nlast words\n', go)],
    });
    const events: AgentEvent[] = [];
    let sawFirst!: () => void;
    const first = new Promise<void>((resolve) => {
      sawFirst = resolve;
    });
    // The fleet's event stream, not the spawn's observer: a line written just before the answer
    // travels on another pipe and may arrive after spawn resolved.
    supervisor.on('event', (_handle, event) => {
      events.push(event);
      if (event.stream === 'stderr') sawFirst();
    });
    const done = supervisor.spawn({ agent: 'talker', instruction: 'x' });
    await first;
    const running = supervisor.list()[0];
    expect(running?.state).toBe('running');
    expect(running?.tail).toEqual([{ stream: 'stderr', text: 'warming up' }]);
    writeFileSync(go, '');
    const status = await done;
    expect(status).toMatchObject({ state: 'succeeded', output: 'done' });
    // A line split across writes arrives whole.
    const lines = () => events.filter((e) => e.stream === 'stderr').map((e) => e.text);
    await expect
      .poll(lines, { timeout: 10_000, interval: 20 })
      .toEqual(['warming up', 'partial line', 'last words']);
    expect(events.filter((e) => e.stream === 'stderr')[0]).toEqual({
      type: 'message',
      text: 'warming up',
      stream: 'stderr',
    });
    // The agent's own log events stay what they were: not stderr.
    expect(events).toContainEqual({ type: 'log', level: 'info', message: 'own log event' });
    expect(supervisor.status(status.handle).tail?.map((line) => line.text)).toEqual([
      'warming up',
      'partial line',
      'last words',
    ]);
  });

  it('bounds the tail like a plain run: the last lines, each line cut', async () => {
    const many = `${Array.from({ length: 200 }, (_, i) => `err ${i}`).join('\n')}\n${'x'.repeat(3000)}`;
    const supervisor = makeSupervisor({ profiles: [...testProfiles(), stderrAgent('noisy', many, '')] });
    const status = await supervisor.spawn({ agent: 'noisy', instruction: 'x' });
    expect(status.state).toBe('succeeded');
    // The last line has no newline: it is kept once stderr ends, which may be just after the answer.
    await expect
      .poll(() => supervisor.status(status.handle).tail?.at(-1)?.text.length, {
        timeout: 10_000,
        interval: 20,
      })
      .toBe(1001);
    const tail = supervisor.status(status.handle).tail ?? [];
    expect(tail).toHaveLength(TAIL_LINES);
    expect(tail.at(-2)).toEqual({ stream: 'stderr', text: 'err 199' });
    expect(tail.at(-1)?.text).toBe(`${'x'.repeat(1000)}…`);
  });

  it('gives a protocol agent that writes no stderr no tail', async () => {
    const supervisor = makeSupervisor();
    const status = await supervisor.spawn({ agent: 'example', instruction: 'echo hi' });
    expect(status).toMatchObject({ state: 'succeeded' });
    expect(status.tail).toBeUndefined();
  });
});

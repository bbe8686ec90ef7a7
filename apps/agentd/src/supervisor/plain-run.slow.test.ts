/** Plain mode streaming against real children: line events, the live tail, the {instruction} placeholder, the cap. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TAIL_LINES } from './output-lines.js';
import { disposeAll, makeSupervisor, sh, testProfiles } from './test-support/fixtures.js';
import type { AgentEvent } from './types.js';

afterEach(disposeAll);

describe('plain mode streaming', () => {
  it('turns each stdout line into progress and each stderr line into a log event, while it runs', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentd-plain-'));
    const go = join(dir, 'go');
    // The child waits for the test's signal file, so "mid-run" is a fact, not a timing guess.
    const script = `echo first; echo "warming up" >&2; while [ ! -e '${go}' ]; do sleep 0.02; done; echo second`;
    const supervisor = makeSupervisor({ profiles: [...testProfiles(), sh('chatty', script)] });
    const events: AgentEvent[] = [];
    let firstTwo!: () => void;
    const twoLines = new Promise<void>((resolve) => {
      firstTwo = resolve;
    });
    const done = supervisor.spawn({ agent: 'chatty', instruction: 'x' }, undefined, {
      onEvent: (event) => {
        if (events.push(event) === 2) firstTwo();
      },
    });
    await twoLines;
    const running = supervisor.list()[0];
    expect(running?.state).toBe('running');
    expect(running?.tail).toEqual(
      expect.arrayContaining([
        { stream: 'stdout', text: 'first' },
        { stream: 'stderr', text: 'warming up' },
      ]),
    );
    writeFileSync(go, '');
    const status = await done;
    expect(status).toMatchObject({ state: 'succeeded', output: 'first\nsecond' });
    // Every line is a `message` run event marked with its stream, the same model as every mode's.
    expect(events.filter((e) => e.stream === 'stdout')).toEqual([
      { type: 'message', text: 'first', stream: 'stdout' },
      { type: 'message', text: 'second', stream: 'stdout' },
    ]);
    expect(events.filter((e) => e.stream === 'stderr')).toEqual([
      { type: 'message', text: 'warming up', stream: 'stderr' },
    ]);
    expect(events.filter((e) => e.type === 'progress' || e.type === 'log')).toEqual([]);
  });

  it('keeps a bounded tail of the last lines', async () => {
    const supervisor = makeSupervisor({
      profiles: [
        ...testProfiles(),
        sh('many', 'i=0; while [ $i -lt 500 ]; do echo "line $i"; i=$((i+1)); done'),
      ],
    });
    const status = await supervisor.spawn({ agent: 'many', instruction: 'x' });
    expect(status.tail).toHaveLength(TAIL_LINES);
    expect(status.tail?.at(-1)).toEqual({ stream: 'stdout', text: 'line 499' });
  });

  it('places the instruction where the profile asks ({instruction}), with stdin closed', async () => {
    const supervisor = makeSupervisor({
      profiles: [
        ...testProfiles(),
        {
          name: 'argv',
          mode: 'plain',
          command: '/bin/sh',
          args: ['-c', 'printf "arg=%s stdin=" "$1"; cat', 'sh', 'say {instruction}!'],
        },
      ],
    });
    const status = await supervisor.spawn({ agent: 'argv', instruction: 'it is "quoted" $HOME' });
    expect(status).toMatchObject({ state: 'succeeded', output: 'arg=say it is "quoted" $HOME! stdin=' });
  });

  it('keeps the output up to the cap when it kills a child for output_too_large', async () => {
    const supervisor = makeSupervisor({
      profiles: [...testProfiles(), sh('flood', 'yes flood')],
      limits: { maxOutputBytes: 1000 },
    });
    const status = await supervisor.spawn({ agent: 'flood', instruction: 'x' });
    expect(status).toMatchObject({ state: 'failed', error: { code: 'output_too_large' } });
    expect(status.output).toHaveLength(1000);
    expect(status.output?.startsWith('flood\nflood\n')).toBe(true);
  });
});

/** The built-in example agent as the daemon runs it: the built file, spawned by a real Supervisor. */
import { afterEach, describe, expect, it } from 'vitest';
import { exampleAgentProfile } from '../supervisor/example-agent-profile.js';
import { Supervisor } from '../supervisor/supervisor.js';
import { TEST_LIMITS } from '../supervisor/test-support/fixtures.js';
import type { AgentEvent } from '../supervisor/types.js';

const supervisors: Supervisor[] = [];
afterEach(async () => {
  await Promise.all(supervisors.splice(0).map((s) => s.dispose()));
});

function builtIn(): Supervisor {
  const supervisor = new Supervisor({
    profiles: [exampleAgentProfile('example')],
    defaultAgent: 'example',
    limits: TEST_LIMITS,
  });
  supervisors.push(supervisor);
  return supervisor;
}

describe('the built-in example agent', () => {
  it("answers the README's demo and counts words", async () => {
    const supervisor = builtIn();
    expect(await supervisor.spawn({ instruction: 'uppercase hi' })).toMatchObject({
      state: 'succeeded',
      output: 'HI',
    });
    expect((await supervisor.spawn({ instruction: 'count one two three' })).result).toEqual({
      text: '3 words',
      data: { words: 3, characters: 13 },
    });
  });

  it('sleeps with four progress events, and a cancel ends the sleep', async () => {
    const supervisor = builtIn();
    const events: AgentEvent[] = [];
    const slept = await supervisor.spawn({ instruction: 'sleep 40' }, undefined, {
      onEvent: (event) => events.push(event),
    });
    expect(slept.output).toBe('slept 40 ms');
    expect(events.map((e) => e.progress)).toEqual([1, 2, 3, 4]);
    const long = await supervisor.spawn({ instruction: 'sleep 60000', async: true });
    expect((await supervisor.cancel(long.handle, 'enough')).state).toBe('cancelled');
  });

  it('remembers the turns of a warm session', async () => {
    const supervisor = builtIn();
    const session = await supervisor.spawn({ instruction: 'echo first', warm: true });
    expect(session.output).toBe('first');
    expect((await supervisor.send(session.handle, 'history')).output).toBe('echo first\nhistory');
  });

  it('carries no fault injection: crash, hang and the like are plain text to it', async () => {
    const supervisor = builtIn();
    const help = await supervisor.spawn({ instruction: 'help' });
    expect(help.output).toBe('commands: echo TEXT | uppercase TEXT | count TEXT | sleep MS | history | help');
    for (const instruction of ['crash 3', 'hang', 'big 100000', 'garbage']) {
      const status = await supervisor.spawn({ instruction, timeoutMs: 5_000 });
      expect(status, instruction).toMatchObject({ state: 'succeeded' });
      expect(status.output).toMatch(/^received \d words; commands:/);
    }
  });
});

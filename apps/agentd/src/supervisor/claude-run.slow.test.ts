/** A `claude` agent that breaks the stream-json protocol fails clearly (no Claude Code needed: a shell plays it). */
import { LocalError } from '@agentd/rpc-frame';
import { afterEach, describe, expect, it } from 'vitest';
import { disposeAll, makeSupervisor, sh } from './test-support/fixtures.js';

afterEach(disposeAll);

describe('claude mode against a broken agent', () => {
  it('fails a run whose agent writes a line that is not stream-json', async () => {
    const supervisor = makeSupervisor({
      profiles: [sh('garbage', 'read line; echo "this is not json"; sleep 30', { mode: 'claude' })],
      defaultAgent: 'garbage',
    });
    const status = await supervisor.spawn({ instruction: 'hello' });
    expect(status).toMatchObject({ state: 'failed', error: { code: 'protocol_error' } });
    expect(status.error?.message).toBe(
      'claude wrote a line that is not a stream-json message: "this is not json"',
    );
  });

  it('fails a run whose agent leaves before answering the turn', async () => {
    const supervisor = makeSupervisor({
      profiles: [
        sh('quitter', 'read line; echo \'{"type":"system","subtype":"init","session_id":"s-1"}\'; exit 3', {
          mode: 'claude',
        }),
      ],
      defaultAgent: 'quitter',
    });
    const status = await supervisor.spawn({ instruction: 'hello' });
    expect(status).toMatchObject({
      state: 'failed',
      sessionId: 's-1',
      error: { code: 'crashed', exitCode: 3, message: 'claude exited with code 3 before answering' },
    });
  });

  it('refuses approvals nobody can take: unknown handle, no such request, a custom broker', async () => {
    const supervisor = makeSupervisor();
    const code = (call: () => unknown): string => {
      try {
        call();
      } catch (error) {
        expect(error).toBeInstanceOf(LocalError);
        return (error as LocalError).code;
      }
      throw new Error('expected a refusal');
    };
    expect(code(() => supervisor.approve('nope', 'r1', 'allow'))).toBe('unknown_handle');
    const run = await supervisor.spawn({ agent: 'cat', instruction: 'hi' });
    expect(code(() => supervisor.approve(run.handle, 'r1', 'allow'))).toBe('unknown_request');
    expect(code(() => supervisor.approve(run.handle, '', 'allow'))).toBe('invalid_request');
    const custom = makeSupervisor({
      permissions: { decide: async () => ({ outcome: 'cancelled', by: 'policy' }) },
    });
    const other = await custom.spawn({ agent: 'cat', instruction: 'hi' });
    expect(code(() => custom.approve(other.handle, 'r1', 'allow'))).toBe('invalid_request');
  });

  it('refuses a plain agent as a warm session with a message naming the modes that can', async () => {
    const supervisor = makeSupervisor();
    await expect(supervisor.spawn({ agent: 'cat', instruction: 'x', warm: true })).rejects.toMatchObject({
      code: 'invalid_request',
      message: 'agent "cat" runs in plain mode; warm sessions need a protocol, claude or acp agent',
    });
  });
});

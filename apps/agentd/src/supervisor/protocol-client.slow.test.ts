/** The protocol client against scripted real children: odd but legal traffic, and violations. */
import { afterEach, describe, expect, it } from 'vitest';
import { exampleAgentPath } from './example-agent-profile.js';
import { disposeAll, makeSupervisor, statusWhen, testProfiles } from './test-support/fixtures.js';
import type { AgentProfile, LogEntry } from './types.js';

afterEach(disposeAll);

/** A protocol agent written inline: `body` runs once per request line with `id`, `method`, `params`, `send`. */
function scripted(name: string, body: string): AgentProfile {
  const source = `
    const send = (m) => process.stdout.write(JSON.stringify({ jsonrpc: '2.0', ...m }) + '\\n');
    require('node:readline').createInterface({ input: process.stdin }).on('line', (line) => {
      const { id, method, params } = JSON.parse(line);
      ${body}
    }).on('close', () => process.exit(0));`;
  return { name, mode: 'protocol', command: process.execPath, args: ['-e', source] };
}

describe('agent protocol edge cases', () => {
  it('answers agent requests with -32601 and tolerates stray notifications and replies', async () => {
    const agent = scripted(
      'chatty',
      `if (method === 'run') {
         send({ id: 'from-agent', method: 'sampling/createMessage', params: {} });
         send({ method: 'telemetry', params: {} });
         send({ id: 999, result: {} });
         send({ id, result: { text: 'done anyway', extra: [1, 2] } });
       } else if (id === 'from-agent') {}`,
    );
    const supervisor = makeSupervisor({ profiles: [...testProfiles(), agent] });
    const warnings: LogEntry[] = [];
    supervisor.on('log', (entry) => {
      if (entry.level === 'warning') warnings.push(entry);
    });
    const status = await supervisor.spawn({ agent: 'chatty', instruction: 'go' });
    expect(status).toMatchObject({ state: 'succeeded', output: 'done anyway', result: { extra: [1, 2] } });
    expect(warnings.map((w) => w.msg)).toEqual([
      'agent sent an unknown notification "telemetry"',
      'agent answered a request that was never sent (id 999)',
    ]);
  });

  it('answers an agent request with -32601 that the agent can read', async () => {
    // The agent answers `run` (id 1) with the error code the supervisor sent back for its own request.
    const agent = scripted(
      'asker',
      `if (method === 'run') send({ id: 'q1', method: 'ask', params: {} });
       else if (id === 'q1') send({ id: 1, result: { text: String(JSON.parse(line).error.code) } });`,
    );
    const status = await makeSupervisor({ profiles: [...testProfiles(), agent] }).spawn({
      agent: 'asker',
      instruction: 'go',
    });
    expect(status.output).toBe('-32601');
  });

  it('fails a run whose agent answers with a non-object result', async () => {
    const agent = scripted('scalar', `if (method === 'run') send({ id, result: 42 });`);
    const status = await makeSupervisor({ profiles: [...testProfiles(), agent] }).spawn({
      agent: 'scalar',
      instruction: 'x',
    });
    expect(status.state).toBe('failed');
    expect(status.error?.code).toBe('protocol_error');
    expect(status.error?.message).toContain('result must be an object');
  });

  it('ends a warm session cleanly when the agent exits 0 after a turn', async () => {
    const agent = scripted('brief', `send({ id, result: { text: 'bye' } }); process.exit(0);`);
    const supervisor = makeSupervisor({ profiles: [...testProfiles(), agent] });
    const session = await supervisor.spawn({ agent: 'brief', instruction: 'hello', warm: true });
    expect(session.output).toBe('bye');
    await statusWhen(supervisor, session.handle, (s) => s.terminal);
    expect(supervisor.status(session.handle)).toMatchObject({
      state: 'succeeded',
      reason: 'the agent ended the session',
      turns: 1,
    });
  });

  it('fails a run whose agent is killed from outside', async () => {
    const supervisor = makeSupervisor();
    const run = await supervisor.spawn({ instruction: 'hang', async: true });
    process.kill(run.pid ?? 0, 'SIGKILL');
    await statusWhen(supervisor, run.handle, (s) => s.terminal);
    expect(supervisor.status(run.handle)).toMatchObject({
      state: 'failed',
      error: {
        code: 'crashed',
        signal: 'SIGKILL',
        exitCode: null,
        message: 'agent was killed by SIGKILL before answering',
      },
    });
  });

  it('reports a missing working directory as a start failure', async () => {
    const profile: AgentProfile = {
      name: 'lost',
      mode: 'plain',
      command: 'cat',
      cwd: '/nonexistent/agentd-dir',
    };
    const status = await makeSupervisor({ profiles: [...testProfiles(), profile] }).spawn({
      agent: 'lost',
      instruction: 'x',
    });
    expect(status.state).toBe('failed');
    expect(status.error?.code).toBe('spawn_failed');
  });

  it('resolves the example agent to a built file', () => {
    expect(exampleAgentPath()).toMatch(/dist\/agents\/example-agent\.js$/);
  });
});

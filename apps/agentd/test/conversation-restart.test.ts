/**
 * Issue 36: a conversation outlives the daemon. A `claude` session (the real Claude Code CLI
 * against the scripted model) is live when the daemon is killed with SIGKILL; after the restart
 * it is `lost`, and `agentd send HANDLE` continues it in a new Claude process (`--resume`) under
 * the same handle and run id: the model sees the earlier turn. Without the binary: SKIPPED.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Json, NdjsonClient, toolValue } from '@agentd/test-support';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { acpTestProfile } from '../src/supervisor/test-support/acp-test-agent.js';
import { type Agentd, runCli, startAgentd } from './support/agentd-process.js';
import { CLAUDE_MISSING_IN_CI, claudeProfile, claudeTests } from './support/claude-cli.js';
import { ScriptedModel } from './support/scripted-model.js';

const cli = claudeTests('apps/agentd conversation after restart');

let model: ScriptedModel | undefined;
const daemons: Agentd[] = [];
afterEach(async () => {
  for (const agentd of daemons.splice(0)) if (agentd.proc.exitCode === null) await agentd.stop();
  await model?.close();
});

describe.runIf(cli.run || cli.failInCi)('a conversation continues after a restart', () => {
  it('send on a lost claude session resumes it in a new process with its context', async () => {
    if (cli.failInCi) throw new Error(CLAUDE_MISSING_IN_CI);
    model = await ScriptedModel.start();
    const root = mkdtempSync(join(tmpdir(), 'agentd-resume-'));
    const work = join(root, 'work');
    const home = join(root, 'home');
    mkdirSync(work);
    mkdirSync(home);
    const { name: _name, ...profile } = claudeProfile('claude', model.url, work, home);
    const config: Json = { agents: { claude: profile as unknown as Json }, defaultAgent: 'claude' };
    const start = async () => {
      const agentd = await startAgentd({
        args: ['--exposure', 'classic'],
        config,
        env: { XDG_STATE_HOME: root },
      });
      daemons.push(agentd);
      return agentd;
    };

    const first = await start();
    const c1 = await NdjsonClient.connect(first.socket);
    model.enqueue({ text: 'Noted: the password is swordfish.' });
    const session = toolValue(
      await c1.modernResult('tools/call', {
        name: 'command_subagent.spawn',
        arguments: { instruction: 'remember: the password is swordfish' },
      }),
    );
    expect(session).toMatchObject({ state: 'ready', warm: true });
    expect(typeof session.sessionId).toBe('string');
    // Records are written within a tick of the change: kill once the session's id is on disk.
    await onDisk(root, String(session.sessionId));
    c1.stream.end();
    first.proc.kill('SIGKILL');
    await first.exited;

    const second = await start();
    const status = await runCli(['status', String(session.handle), '--json', '--socket', second.socket]);
    expect(JSON.parse(status.stdout)).toMatchObject({ state: 'lost', sessionId: session.sessionId });

    model.enqueue({ text: 'It is swordfish.' });
    const sent = await runCli([
      'send',
      String(session.handle),
      'what is the password?',
      '--socket',
      second.socket,
    ]);
    expect(sent.code).toBe(0);
    // The turn's events go to stderr (as `agentd send` shows them); the reply to stdout.
    expect(sent.stderr).toContain('turn 1 ended');
    expect(sent.stdout).toContain('It is swordfish.');
    const messages = JSON.stringify(model.mainRequests.at(-1)?.body.messages);
    expect(messages).toContain('remember: the password is swordfish');
    expect(messages).toContain('what is the password?');

    const after = await runCli(['status', String(session.handle), '--json', '--socket', second.socket]);
    expect(JSON.parse(after.stdout)).toMatchObject({
      runId: session.runId,
      state: 'ready',
      sessionId: session.sessionId,
    });
    // A run that is not a lost conversation is not continued: an unknown handle stays unknown.
    const unknown = await runCli(['send', 'sa_nope', 'hello', '--socket', second.socket]);
    expect(unknown.code).toBe(1);
  }, 120_000);
});

/** The state directory's index holds `text` (a record is written within a tick of its change). */
async function onDisk(root: string, text: string): Promise<void> {
  const index = join(root, 'agentd', 'history', 'index.jsonl');
  await vi.waitFor(
    () =>
      expect(existsSync(index) && readFileSync(index, 'utf8').includes(text), `${text} in ${index}`).toBe(
        true,
      ),
    { timeout: 20_000, interval: 20 },
  );
}

describe('an acp conversation continues after a restart', () => {
  for (const how of ['session/load', 'session/resume'] as const) {
    it(`send on a lost acp session resumes it with ${how}`, async () => {
      const root = mkdtempSync(join(tmpdir(), 'agentd-acp-resume-'));
      const sessions = join(root, 'sessions');
      mkdirSync(sessions);
      const flags = ['--state', sessions, ...(how === 'session/resume' ? ['--resume'] : [])];
      const { name: _name, ...profile } = acpTestProfile('acp', {}, flags);
      const config: Json = { agents: { acp: profile as unknown as Json }, defaultAgent: 'acp' };
      const start = async () => {
        const agentd = await startAgentd({
          args: ['--exposure', 'classic'],
          config,
          env: { XDG_STATE_HOME: root },
        });
        daemons.push(agentd);
        return agentd;
      };
      const first = await start();
      const c1 = await NdjsonClient.connect(first.socket);
      const session = toolValue(
        await c1.modernResult('tools/call', {
          name: 'command_subagent.spawn',
          arguments: { instruction: 'echo remember-this' },
        }),
      );
      expect(session).toMatchObject({ state: 'ready', warm: true });
      await onDisk(root, String(session.sessionId));
      c1.stream.end();
      first.proc.kill('SIGKILL');
      await first.exited;

      const second = await start();
      const sent = await runCli([
        'send',
        String(session.handle),
        'history',
        '--json',
        '--socket',
        second.socket,
      ]);
      expect(sent.code).toBe(0);
      // The agent's own record of the session: the earlier prompt, then this one.
      expect(sent.stdout).toContain(`\\"prompts\\":[\\"echo remember-this\\",\\"history\\"]`);
      const after = await runCli(['status', String(session.handle), '--json', '--socket', second.socket]);
      expect(JSON.parse(after.stdout)).toMatchObject({ runId: session.runId, state: 'ready' });
    }, 60_000);
  }
});

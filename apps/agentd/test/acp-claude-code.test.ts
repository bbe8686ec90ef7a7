/**
 * `acp` mode against the real Claude Code ACP adapter (@zed-industries/claude-code-acp, pinned),
 * Claude Code talking to a scripted Anthropic Messages API on loopback: offline, real processes.
 */
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Supervisor } from '../src/supervisor/supervisor.js';
import { scriptedBroker } from '../src/supervisor/test-support/acp-test-agent.js';
import { disposeAll, makeSupervisor, processGone } from '../src/supervisor/test-support/fixtures.js';
import type { AgentEvent } from '../src/supervisor/types.js';
import { ScriptedModel } from './support/scripted-model.js';

const ADAPTER = fileURLToPath(import.meta.resolve('@zed-industries/claude-code-acp/dist/index.js'));

let model: ScriptedModel | undefined;
afterEach(async () => {
  await disposeAll();
  await model?.close();
  model = undefined;
});

async function tempDir(prefix: string): Promise<string> {
  return realpathSync(await mkdtemp(join(tmpdir(), prefix)));
}

async function claudeAcp(
  answer: 'allow' | 'reject',
): Promise<{ supervisor: Supervisor; events: AgentEvent[]; cwd: string }> {
  model = await ScriptedModel.start();
  const cwd = await tempDir('agentd-cc-work-');
  const config = await tempDir('agentd-cc-config-');
  const supervisor = makeSupervisor({
    profiles: [
      {
        name: 'claude-acp',
        mode: 'acp',
        command: process.execPath,
        args: [ADAPTER],
        cwd,
        env: {
          ANTHROPIC_BASE_URL: model.url,
          ANTHROPIC_API_KEY: 'sk-ant-test',
          CLAUDE_CONFIG_DIR: config,
          IS_SANDBOX: '1',
          CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
          DISABLE_AUTOUPDATER: '1',
        },
      },
    ],
    defaultAgent: 'claude-acp',
    permissions: scriptedBroker(answer),
    limits: { defaultTimeoutMs: 60_000, maxOutputBytes: 4 * 1024 * 1024 },
  });
  const events: AgentEvent[] = [];
  supervisor.on('event', (_handle, event) => events.push(event));
  return { supervisor, events, cwd };
}

describe('acp mode with the Claude Code ACP adapter', () => {
  it.each(['allow', 'reject'] as const)(
    'a Write needs permission: %s',
    async (answer) => {
      const { supervisor, events, cwd } = await claudeAcp(answer);
      const file = join(cwd, 'out.txt');
      model?.enqueue({
        text: 'Writing the file.',
        toolUses: [{ name: 'Write', input: { file_path: file, content: 'hello\n' } }],
      });
      // Claude Code ends the turn when a tool is rejected: the model is asked again only after an allow.
      if (answer === 'allow') model?.enqueue({ text: 'Done.' });
      const session = await supervisor.spawn({ instruction: 'write hello to out.txt', warm: true });
      expect(session.state, JSON.stringify(session.error)).toBe('ready');
      const requests = events.filter((event) => event.type === 'permission_request');
      expect(requests).toHaveLength(1);
      expect(JSON.stringify(requests[0])).toContain('out.txt');
      expect(events).toContainEqual({ type: 'diff', path: file, newText: 'hello\n' });
      const calls = events.filter((event) => event.type === 'tool_call').map((event) => event.toolCall);
      expect(calls.at(-1)).toMatchObject({
        title: `Write ${file}`,
        kind: 'edit',
        locations: [file],
        status: answer === 'allow' ? 'completed' : 'failed',
      });
      expect(existsSync(file)).toBe(answer === 'allow');
      if (answer === 'allow') expect(readFileSync(file, 'utf8')).toBe('hello\n');
      expect(session.output).toContain(answer === 'allow' ? 'Done.' : 'Writing the file.');
      // A second message continues the same conversation: the model sees the earlier turns.
      model?.enqueue({ text: 'Second answer.' });
      const reply = await supervisor.send(session.handle, 'and now?');
      expect(reply.output).toContain('Second answer.');
      const last = model?.mainRequests.at(-1)?.body.messages ?? [];
      expect(JSON.stringify(last)).toContain('write hello to out.txt');
      expect(JSON.stringify(last)).toContain('and now?');
      await supervisor.closeSession(session.handle);
      await vi.waitFor(() => expect(processGone(session.pid as number)).toBe(true), {
        timeout: 10_000,
        interval: 20,
      });
    },
    90_000,
  );
});

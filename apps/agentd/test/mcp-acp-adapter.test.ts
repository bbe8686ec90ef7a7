/**
 * The Claude Code ACP adapter (@zed-industries/claude-code-acp, pinned) through the MCP surface:
 * a real daemon whose `acp` profile runs the adapter against a scripted Anthropic Messages API on
 * loopback, driven by the official MCP SDK client over HTTP (legacy era). The adapter's permission
 * prompt for a `Write` reaches the caller as `elicitation/create`; accepting writes the file; a
 * second `subagent.send` continues the same conversation; the run's status carries what the adapter
 * reports (the pinned version reports no usage or cost). Without the adapter the file is one
 * SKIPPED line (a failure under CI=true).
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Json } from '@agentd/test-support';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema, LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Agentd, startAgentd } from './support/agentd-process.js';
import { ScriptedModel } from './support/scripted-model.js';

const IN_CI = process.env.CI === 'true';
const MISSING_IN_CI =
  'CI=true but @zed-industries/claude-code-acp is missing: pnpm install must fetch it (apps/agentd devDependency)';

function findAdapter(): string | undefined {
  try {
    const path = fileURLToPath(import.meta.resolve('@zed-industries/claude-code-acp/dist/index.js'));
    return existsSync(path) ? path : undefined;
  } catch {
    return undefined;
  }
}

const ADAPTER = findAdapter();
if (ADAPTER === undefined && !IN_CI)
  console.warn('SKIPPED: Claude Code ACP adapter over MCP: @zed-industries/claude-code-acp is not installed');

let agentd: Agentd;
let model: ScriptedModel;
let root: string;
let work: string;
let client: Client | undefined;

beforeAll(async () => {
  if (ADAPTER === undefined) return;
  model = await ScriptedModel.start();
  root = realpathSync(mkdtempSync(join(tmpdir(), 'agentd-mcp-adapter-')));
  work = join(root, 'work');
  const config = join(root, 'claude-config');
  mkdirSync(work);
  mkdirSync(config);
  agentd = await startAgentd({
    http: true,
    args: ['--exposure', 'classic'],
    config: {
      defaultAgent: 'claude-acp',
      agents: {
        'claude-acp': {
          mode: 'acp',
          command: process.execPath,
          args: [ADAPTER],
          cwd: work,
          env: {
            ANTHROPIC_BASE_URL: model.url,
            ANTHROPIC_API_KEY: 'sk-ant-test',
            CLAUDE_CONFIG_DIR: config,
            IS_SANDBOX: '1',
            CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
            DISABLE_AUTOUPDATER: '1',
          },
          permissions: { default: 'ask', timeoutMs: 60_000 },
        },
      },
      limits: { defaultTimeoutMs: 60_000 },
    },
  });
}, 30_000);

afterAll(async () => {
  await client?.close();
  await agentd?.stop();
  await model?.close();
  if (root !== undefined) rmSync(root, { recursive: true, force: true });
});

async function call(name: string, args: Json): Promise<{ isError: boolean; value: Json }> {
  const result = (await client?.callTool({ name, arguments: args }, undefined, { timeout: 90_000 })) as Json;
  return { isError: result.isError === true, value: (result.structuredContent ?? {}) as Json };
}

describe.skipIf(ADAPTER === undefined)('the Claude Code ACP adapter through MCP', () => {
  it('a Write asks the caller by elicitation, accept writes the file, the conversation continues', async () => {
    const prompts: Json[] = [];
    const logs: Json[] = [];
    client = new Client({ name: 'mcp-acp-adapter', version: '1.0.0' }, { capabilities: { elicitation: {} } });
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      const params = request.params as Json;
      prompts.push(params);
      const decision = ((params.requestedSchema as Json).properties as Json).decision as Json;
      const options = decision.oneOf as Json[];
      // Allow this once (the adapter also offers "Always Allow", which would change its mode).
      const allow = options.find((o) => /allow/i.test(String(o.title)) && !/always/i.test(String(o.title)));
      return { action: 'accept', content: { decision: String(allow?.const) } };
    });
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
      logs.push(n.params.data as Json);
    });
    await client.connect(new StreamableHTTPClientTransport(new URL(agentd.httpUrl as string)));
    await client.setLoggingLevel('info');

    const file = join(work, 'adapter.txt');
    model.enqueue(
      {
        text: 'Writing the file.',
        toolUses: [{ name: 'Write', input: { file_path: file, content: 'hello from the adapter\n' } }],
        usage: { input_tokens: 100, output_tokens: 20 },
      },
      { text: 'Done.', usage: { input_tokens: 150, output_tokens: 10 } },
    );
    const first = await call('command_subagent.spawn', {
      agent: 'claude-acp',
      instruction: 'write adapter.txt',
    });
    expect(first.isError, JSON.stringify(first.value)).toBe(false);
    expect(first.value).toMatchObject({ state: 'ready', mode: 'acp' });
    expect(String(first.value.output)).toContain('Done.');
    expect(readFileSync(file, 'utf8')).toBe('hello from the adapter\n');
    expect(prompts).toHaveLength(1);
    expect(String(prompts[0]?.message)).toContain(`Write ${file}`);
    expect(String(prompts[0]?.message)).toContain(String(first.value.runId));
    const events = logs.filter((l) => l.event === 'run_event').map((l) => l.run as Json);
    expect(events.map((e) => e.type)).toEqual(
      expect.arrayContaining(['tool_call', 'permission_request', 'permission_decision', 'diff', 'turn_end']),
    );
    expect(events.find((e) => e.type === 'permission_decision')).toMatchObject({
      decision: { outcome: 'selected', kind: 'allow_once', by: 'caller' },
    });

    const handle = first.value.handle as string;
    model.enqueue({ text: 'Second answer.', usage: { input_tokens: 200, output_tokens: 5 } });
    const second = await call('command_subagent.send', { handle, message: 'and now?' });
    expect(second.isError, JSON.stringify(second.value)).toBe(false);
    expect(String(second.value.output)).toContain('Second answer.');
    // The scripted model saw the earlier turns in the same conversation.
    const last = JSON.stringify(model.mainRequests.at(-1)?.body.messages);
    expect(last).toContain('write adapter.txt');
    expect(last).toContain('and now?');

    const status = await call('query_subagent.status', { handle });
    // The pinned adapter (0.16.2) reports neither `usage_update` nor a prompt response's usage, so
    // the run has no usage or cost; an adapter that reports them shows up here (see acp-run tests).
    expect(status.value).not.toHaveProperty('usage');
    expect((status.value.events as Json[]).map((e) => e.type)).not.toContain('usage');
    const closed = await call('command_subagent.close', { handle });
    expect(closed.value).toMatchObject({ state: 'succeeded', terminal: true });
  }, 120_000);
});

describe.runIf(ADAPTER === undefined && IN_CI)('the Claude Code ACP adapter under CI', () => {
  it('needs the adapter under CI', () => {
    expect.fail(MISSING_IN_CI);
  });
});

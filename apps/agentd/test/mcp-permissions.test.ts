/**
 * Real agents through the MCP surface, end to end: a real daemon with an `acp` profile (the
 * SDK-written ACP test agent) and a `claude` profile (the real Claude Code CLI against a scripted
 * model on loopback), driven by the official MCP SDK client over HTTP (legacy era) and by a
 * 2026-07-28 client over the unix socket. An agent's permission prompt reaches the waiting caller
 * as `elicitation/create` (legacy) or as the task's `input_required` (2026-07-28); accept writes
 * the file, decline does not; run events arrive as log notifications; an operator answers with
 * `subagent.approve` (exactly once; never a restricted non-starter); `agentd approve` and
 * `agentd close` work from the CLI. Without the Claude Code binary the claude cases are one
 * SKIPPED line (a failure under CI=true); the acp cases always run.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Json, modernMeta, NdjsonClient } from '@agentd/test-support';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema, LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { acpTestProfile } from '../src/supervisor/test-support/acp-test-agent.js';
import { type Agentd, cleanEnv, runCli, startAgentd } from './support/agentd-process.js';
import { CLAUDE_MISSING_IN_CI, claudeProfile, claudeTests } from './support/claude-cli.js';
import { ScriptedModel } from './support/scripted-model.js';

const cli = claudeTests('apps/agentd MCP surface with the claude profile');
const WAIT = { timeout: 20_000, interval: 25 };
const TASKS = { extensions: { 'io.modelcontextprotocol/tasks': {} }, elicitation: { form: {} } };

let agentd: Agentd;
let model: ScriptedModel;
let root: string;
let work: string;
const clients: Client[] = [];

/** A profile as the config file spells it (the name is its key). */
const configOf = ({ name: _name, ...rest }: Json): Json => rest;

beforeAll(async () => {
  model = await ScriptedModel.start();
  root = mkdtempSync(join(tmpdir(), 'agentd-mcp-perm-'));
  work = join(root, 'work');
  const home = join(root, 'home');
  mkdirSync(work);
  mkdirSync(home);
  const agents: Json = {
    acp: configOf(
      acpTestProfile('acp', {
        cwd: work,
        allowFileSystem: true,
        permissions: { default: 'ask', timeoutMs: 60_000 },
      }) as unknown as Json,
    ),
  };
  if (cli.run)
    agents.claude = configOf(
      claudeProfile('claude', model.url, work, home, {
        permissions: { default: 'ask', timeoutMs: 60_000 },
      }) as unknown as Json,
    );
  agentd = await startAgentd({
    http: true,
    args: ['--exposure', 'classic'],
    // Anonymous HTTP callers are restricted peers, each legacy session its own principal.
    config: { defaultAgent: 'acp', agents, limits: { maxConcurrentRuns: 16, restrictedRunsPerPrincipal: 8 } },
  });
}, 30_000);

afterAll(async () => {
  for (const client of clients) await client.close();
  await agentd?.stop();
  await model?.close();
  if (root !== undefined) rmSync(root, { recursive: true, force: true });
});

type Answer = { action: 'accept'; content: { decision: string } } | { action: 'decline' };

/** A legacy SDK client over HTTP that declares elicitation (unless told not to) and answers prompts with `answer`. */
async function legacyClient(answer: (params: Json) => Answer, elicitation = true) {
  const client = new Client(
    { name: 'mcp-permissions', version: '1.0.0' },
    { capabilities: elicitation ? { elicitation: {} } : {} },
  );
  const prompts: Json[] = [];
  const logs: Json[] = [];
  if (elicitation)
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      prompts.push(request.params as Json);
      return answer(request.params as Json);
    });
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
    logs.push(n.params.data as Json);
  });
  await client.connect(new StreamableHTTPClientTransport(new URL(agentd.httpUrl as string)));
  clients.push(client);
  await client.setLoggingLevel('info');
  return { client, prompts, logs };
}

async function call(
  client: Client,
  name: string,
  args: Json,
): Promise<{ isError: boolean; value: Json; text: string }> {
  const result = (await client.callTool({ name, arguments: args })) as Json;
  const text = JSON.stringify(result.content);
  return { isError: result.isError === true, value: (result.structuredContent ?? {}) as Json, text };
}

/** The option whose kind is `kind`, from a prompt's form schema. */
function optionFor(prompt: Json, title: RegExp): string {
  const decision = ((prompt.requestedSchema as Json).properties as Json).decision as Json;
  const option = (decision.oneOf as Json[]).find((o) => title.test(String(o.title)));
  return String(option?.const);
}

const runEvents = (logs: Json[]): Json[] =>
  logs.filter((l) => l.event === 'run_event').map((l) => l.run as Json);

async function pendingOf(client: Client, handle: string): Promise<Json[]> {
  return vi.waitFor(async () => {
    const { value } = await call(client, 'query_subagent.status', { handle });
    const pending = (value.pendingPermissions ?? []) as Json[];
    if (pending.length === 0) throw new Error(`no pending permission yet: ${JSON.stringify(value)}`);
    return pending;
  }, WAIT);
}

describe('permission prompts and run events over MCP (acp agent)', () => {
  it('a legacy caller gets elicitation/create: accept writes the file, decline does not; events stream as logs', async () => {
    const { client, prompts, logs } = await legacyClient((params) => ({
      action: 'accept',
      content: { decision: optionFor(params, /allow/i) },
    }));
    const file = join(work, 'accepted.txt');
    const { isError, value } = await call(client, 'command_subagent.spawn', {
      agent: 'acp',
      instruction: `tool ${file} accepted content`,
    });
    expect(isError).toBe(false);
    expect(value).toMatchObject({ state: 'ready', mode: 'acp', output: `wrote ${file}` });
    expect(readFileSync(file, 'utf8')).toBe('accepted content');
    expect(prompts).toHaveLength(1);
    expect(String(prompts[0]?.message)).toContain(`Write ${file}`);
    expect(String(prompts[0]?.message)).toContain(String(value.runId));
    const types = runEvents(logs).map((e) => e.type);
    expect(types).toEqual(
      expect.arrayContaining([
        'tool_call',
        'permission_request',
        'permission_decision',
        'message',
        'turn_end',
      ]),
    );
    const decision = runEvents(logs).find((e) => e.type === 'permission_decision') as Json;
    expect(decision.decision).toMatchObject({ outcome: 'selected', kind: 'allow_once', by: 'caller' });
    expect(logs.find((l) => l.event === 'run_event')).toMatchObject({
      runId: value.runId,
      handle: value.handle,
    });
    // The run's recent events are in its status, each with seq and at.
    const status = await call(client, 'query_subagent.status', { handle: value.handle as string });
    const events = status.value.events as Json[];
    expect(events.map((e) => e.type)).toEqual(expect.arrayContaining(['permission_request', 'turn_end']));
    expect(events[0]).toMatchObject({ seq: expect.any(Number), at: expect.any(String) });
    // The conversation goes on: a second turn in the same session, then close ends it.
    const second = await call(client, 'command_subagent.send', {
      handle: value.handle as string,
      message: 'history',
    });
    expect(second.isError).toBe(false);
    expect(JSON.stringify(second.value)).toContain('tool');
    const closed = await call(client, 'command_subagent.close', { handle: value.handle as string });
    expect(closed.value).toMatchObject({ state: 'succeeded', terminal: true });

    const declined = await legacyClient(() => ({ action: 'decline' }));
    const other = join(work, 'declined.txt');
    const refused = await call(declined.client, 'command_subagent.spawn', {
      agent: 'acp',
      instruction: `tool ${other} never`,
      warm: false,
    });
    expect(refused.value).toMatchObject({ state: 'succeeded', output: 'rejected' });
    expect(existsSync(other)).toBe(false);
    expect(declined.prompts).toHaveLength(1);
  });

  it('subagent.approve: the starter answers once, a second answer is already_decided, a restricted non-starter is refused', async () => {
    // A caller without elicitation cannot be asked: the prompt waits for an answer on the run.
    const { client: starter } = await legacyClient(() => ({ action: 'decline' }), false);
    const file = join(work, 'approved.txt');
    const started = await call(starter, 'command_subagent.spawn', {
      agent: 'acp',
      instruction: `tool ${file} approved`,
      async: true,
      warm: false,
    });
    const handle = started.value.handle as string;
    const [pending] = await pendingOf(starter, handle);
    expect(pending).toMatchObject({ toolCall: { kind: 'edit' }, options: expect.any(Array) });

    // Another restricted peer holding the handle may read the run, but never answer for it.
    const other = await legacyClient(() => ({ action: 'decline' }), false);
    const intruder = await call(other.client, 'command_subagent.approve', { handle });
    expect(intruder.isError).toBe(true);
    expect(intruder.text).toContain('unknown_handle');

    const since = agentd.logs.length;
    const answered = await call(starter, 'command_subagent.approve', { handle });
    expect(answered.isError).toBe(false);
    expect(answered.value).toMatchObject({
      requestId: pending?.requestId,
      decision: { outcome: 'selected', kind: 'allow_once', by: 'operator' },
    });
    const again = await call(starter, 'command_subagent.approve', {
      handle,
      requestId: pending?.requestId as string,
    });
    expect(again.isError).toBe(true);
    expect(again.text).toContain('already_decided');
    const unknown = await call(starter, 'command_subagent.approve', { handle, requestId: 'no-such-request' });
    expect(unknown.text).toContain('unknown_request');
    await vi.waitFor(() => expect(readFileSync(file, 'utf8')).toBe('approved'), WAIT);
    // The decision is logged with the run id, never the handle.
    const line = await agentd.waitForLog((l) => l.msg === 'permission answered by an operator', { since });
    expect(line.runId).toBe(started.value.runId);
    expect(JSON.stringify(agentd.logs.slice(since))).not.toContain(handle);
  });

  it('attach puts a prompt already pending to the run’s starter, never to a restricted non-starter', async () => {
    const starter = await legacyClient((params) => ({
      action: 'accept',
      content: { decision: optionFor(params, /allow/i) },
    }));
    const intruder = await legacyClient((params) => ({
      action: 'accept',
      content: { decision: optionFor(params, /allow/i) },
    }));
    const file = join(work, 'attached.txt');
    const started = await call(starter.client, 'command_subagent.spawn', {
      agent: 'acp',
      instruction: `tool ${file} attached`,
      async: true,
      warm: false,
    });
    const handle = started.value.handle as string;
    await pendingOf(starter.client, handle);
    expect(starter.prompts).toHaveLength(0);
    const watching = call(intruder.client, 'query_subagent.attach', { handle });
    const before = starter.logs.length;
    const following = await call(starter.client, 'query_subagent.attach', { handle });
    // Attaching replays the run's recent events first: the prompt that was pending is among them.
    expect(runEvents(starter.logs.slice(before)).map((e) => e.type)).toContain('permission_request');
    expect(following.value).toMatchObject({ state: 'succeeded', output: `wrote ${file}` });
    expect((await watching).value).toMatchObject({ state: 'succeeded' });
    expect(starter.prompts).toHaveLength(1);
    expect(intruder.prompts).toHaveLength(0);
    expect(readFileSync(file, 'utf8')).toBe('attached');
    const events = (following.value.events ?? []) as Json[];
    expect(events.find((e) => e.type === 'permission_decision')).toMatchObject({
      decision: { by: 'caller' },
    });
  });

  it('agentd approve --deny and agentd close from the CLI', async () => {
    const c = await NdjsonClient.connect(agentd.socket);
    try {
      const file = join(work, 'cli-denied.txt');
      const started = await c.request('tools/call', {
        name: 'command_subagent.spawn',
        arguments: { agent: 'acp', instruction: `tool ${file} no`, async: true },
        _meta: modernMeta(),
      });
      const handle = String(((started.result as Json).structuredContent as Json).handle);
      const env = cleanEnv({ AGENTD_SOCKET: agentd.socket });
      await vi.waitFor(async () => {
        const status = await runCli(['status', handle, '--json'], env);
        expect(JSON.parse(status.stdout).pendingPermissions).toHaveLength(1);
      }, WAIT);
      const denied = await runCli(['approve', handle, '--deny'], env);
      expect(denied.stderr).toBe('');
      expect(denied.code).toBe(0);
      expect(denied.stdout).toMatch(/^permission .+: reject_once \(option reject\)\n$/);
      const late = await runCli(['approve', handle], env);
      expect(late.code).toBe(1);
      expect(late.stderr).toContain('no pending permission request');
      await vi.waitFor(async () => {
        const status = await runCli(['status', handle, '--json'], env);
        expect(JSON.parse(status.stdout)).toMatchObject({ state: 'ready', output: 'rejected' });
      }, WAIT);
      expect(existsSync(file)).toBe(false);
      const closed = await runCli(['close', handle, '--json'], env);
      expect(closed.code).toBe(0);
      expect(JSON.parse(closed.stdout)).toMatchObject({ state: 'succeeded', terminal: true });
      // spawn prints the run's events readably (piped: on stderr), or as JSON lines with --events.
      const shown = await runCli(['spawn', '--agent', 'acp', 'echo hi \u001b[2Jthere'], env);
      expect(shown.code).toBe(0);
      expect(shown.stdout).toContain('hi ^[[2Jthere');
      expect(shown.stderr).toContain('plan:\n  [~] answer\n');
      expect(shown.stderr).toContain('· turn 1 ended (end_turn)');
      expect(shown.stderr).not.toContain('\u001b[2J');
      const lines = await runCli(['spawn', '--agent', 'acp', '--events', '--json', 'echo as json'], env);
      // One JSON line per event, then the final status as pretty JSON.
      const printed = lines.stdout.split('\n').filter((line) => line.startsWith('{"'));
      const types = printed.map((line) => (JSON.parse(line) as Json).type);
      expect(types).toEqual(expect.arrayContaining(['thought', 'plan', 'message', 'turn_end']));
      for (const out of [shown, lines]) {
        const run = /started \(handle (sa_[^)]+)\)/.exec(out.stderr)?.[1];
        if (run !== undefined) await runCli(['close', run], env);
      }
      const help = await runCli(['approve', '--help'], env);
      expect(help.stdout).toContain('agentd approve RUN [REQUEST_ID] [--deny] [--always]');
    } finally {
      c.end();
    }
  });

  it('a 2026-07-28 task-augmented spawn asks through the task: input_required, answered with tasks/update', async () => {
    const c = await NdjsonClient.connect(agentd.socket);
    const modern = (method: string, params: Json) =>
      c.request(method, {
        ...params,
        _meta: modernMeta({ 'io.modelcontextprotocol/clientCapabilities': TASKS }),
      });
    try {
      const file = join(work, 'task.txt');
      const created = (
        await modern('tools/call', {
          name: 'command_subagent.spawn',
          arguments: { agent: 'acp', instruction: `tool ${file} from the task`, async: true, warm: false },
        })
      ).result as Json;
      expect(created).toMatchObject({ resultType: 'task' });
      const taskId = String(created.taskId);
      const asking = await vi.waitFor(async () => {
        const task = (await modern('tasks/get', { taskId })).result as Json;
        if (task.status !== 'input_required') throw new Error(JSON.stringify(task));
        return task;
      }, WAIT);
      const requests = asking.inputRequests as Json;
      const [key] = Object.keys(requests);
      expect(key).toMatch(/^permission_/);
      const params = (requests[key as string] as Json).params as Json;
      expect((requests[key as string] as Json).method).toBe('elicitation/create');
      expect(String(params.message)).toContain(`Write ${file}`);
      await modern('tasks/update', {
        taskId,
        inputResponses: {
          [key as string]: { action: 'accept', content: { decision: optionFor(params, /allow/i) } },
        },
      });
      const done = await vi.waitFor(async () => {
        const task = (await modern('tasks/get', { taskId })).result as Json;
        if (task.status !== 'completed') throw new Error(JSON.stringify(task));
        return task;
      }, WAIT);
      expect((done.result as Json).structuredContent).toMatchObject({ state: 'succeeded' });
      expect(readFileSync(file, 'utf8')).toBe('from the task');
    } finally {
      c.end();
    }
  });
});

describe('a 2026-07-28 caller outside a task (acp agent)', () => {
  it('a prompt ends the call with input_required; the retry answers it and the call goes on', async () => {
    const c = await NdjsonClient.connect(agentd.socket);
    const caps = { elicitation: { form: {} } };
    const callTool = (name: string, args: Json, more: Json = {}) =>
      c.request('tools/call', {
        name,
        arguments: args,
        ...more,
        _meta: {
          ...modernMeta({ 'io.modelcontextprotocol/clientCapabilities': caps }),
          progressToken: `p-${name}`,
        },
      });
    /** Calls until the result is complete, answering each prompt with `answer`. */
    async function untilComplete(name: string, args: Json, answer: (params: Json) => Json): Promise<Json[]> {
      const prompts: Json[] = [];
      let response = await callTool(name, args);
      for (let round = 0; round < 4; round++) {
        const result = response.result as Json;
        if (result.resultType !== 'input_required') return [...prompts, result];
        const requests = result.inputRequests as Json;
        const responses: Json = {};
        for (const [key, request] of Object.entries(requests)) {
          expect(key).toMatch(/^permission_/);
          const params = (request as Json).params as Json;
          prompts.push(params);
          responses[key] = answer(params);
        }
        response = await callTool(name, args, {
          inputResponses: responses,
          requestState: result.requestState,
        });
      }
      throw new Error('too many rounds');
    }
    try {
      const file = join(work, 'modern.txt');
      const spawned = await untilComplete(
        'command_subagent.spawn',
        { agent: 'acp', instruction: `tool ${file} modern` },
        (params) => ({
          action: 'accept',
          content: { decision: optionFor(params, /allow/i) },
        }),
      );
      expect(spawned).toHaveLength(2);
      expect(String(spawned[0]?.message)).toContain(`Write ${file}`);
      const status = (spawned[1] as Json).structuredContent as Json;
      expect(status).toMatchObject({ state: 'ready', output: `wrote ${file}` });
      expect(readFileSync(file, 'utf8')).toBe('modern');
      // The finished turn was a progress notification (its number) to the call that followed it.
      const turns = c.notifications('notifications/progress').map((m) => m.params as Json);
      expect(turns).toContainEqual(
        expect.objectContaining({ progressToken: 'p-command_subagent.spawn', progress: 1 }),
      );
      // Only one run was started: the retry followed the first one.
      expect((status.events as Json[]).filter((e) => e.type === 'permission_decision')).toEqual([
        expect.objectContaining({ decision: expect.objectContaining({ by: 'caller', kind: 'allow_once' }) }),
      ]);
      const other = join(work, 'modern-declined.txt');
      const sent = await untilComplete(
        'command_subagent.send',
        { handle: status.handle, message: `tool ${other} no` },
        () => ({
          action: 'decline',
        }),
      );
      expect(sent).toHaveLength(2);
      expect((sent[1] as Json).structuredContent).toMatchObject({ output: 'rejected', isError: false });
      expect(existsSync(other)).toBe(false);
      const closed = await callTool('command_subagent.close', { handle: status.handle });
      expect((closed.result as Json).structuredContent).toMatchObject({ state: 'succeeded' });
    } finally {
      c.end();
    }
  });
});

describe.skipIf(!cli.run)('permission prompts over MCP (claude agent, real Claude Code CLI)', () => {
  it('elicitation allows the Write, the conversation continues, usage and a tiny budget', async () => {
    const { client, prompts, logs } = await legacyClient((params) => ({
      action: 'accept',
      content: { decision: optionFor(params, /allow/i) },
    }));
    const file = join(work, 'claude.txt');
    model.enqueue(
      {
        text: 'I will write the file.',
        toolUses: [{ name: 'Write', input: { file_path: file, content: 'hello from claude\n' } }],
        usage: { input_tokens: 100, output_tokens: 20 },
      },
      { text: 'Wrote it.', usage: { input_tokens: 150, output_tokens: 10 } },
      { text: 'Still here.', usage: { input_tokens: 200, output_tokens: 5 } },
    );
    const first = await call(client, 'command_subagent.spawn', {
      agent: 'claude',
      instruction: 'write claude.txt',
    });
    expect(first.value).toMatchObject({ state: 'ready', mode: 'claude', output: 'Wrote it.' });
    expect(readFileSync(file, 'utf8')).toBe('hello from claude\n');
    expect(prompts).toHaveLength(1);
    expect(String(prompts[0]?.message)).toContain('Write');
    expect(runEvents(logs).map((e) => e.type)).toEqual(
      expect.arrayContaining(['permission_request', 'usage', 'turn_end']),
    );
    const handle = first.value.handle as string;
    const second = await call(client, 'command_subagent.send', { handle, message: 'are you there?' });
    expect(second.value).toMatchObject({ output: 'Still here.' });
    // The scripted model saw the earlier turns in the same conversation.
    expect(JSON.stringify(model.mainRequests.at(-1)?.body.messages)).toContain('write claude.txt');
    const status = await call(client, 'query_subagent.status', { handle });
    expect(status.value.usage).toMatchObject({
      inputTokens: expect.any(Number),
      outputTokens: expect.any(Number),
    });
    expect((status.value.usage as Json).costUsd).toBeGreaterThan(0);
    await call(client, 'command_subagent.close', { handle });

    model.enqueue({ text: 'That was expensive.', usage: { input_tokens: 5000, output_tokens: 500 } });
    const over = await call(client, 'command_subagent.spawn', {
      agent: 'claude',
      instruction: 'spend a lot',
      budget: { maxTokens: 10 },
    });
    expect(over.isError).toBe(true);
    expect(over.value).toMatchObject({ state: 'failed', error: { code: 'budget_exceeded' } });
  });
});

describe.runIf(cli.failInCi)('claude MCP surface under CI', () => {
  it('needs the Claude Code binary under CI', () => {
    expect.fail(CLAUDE_MISSING_IN_CI);
  });
});

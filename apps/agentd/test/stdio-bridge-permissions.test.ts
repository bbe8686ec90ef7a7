/**
 * A permission prompt through `agentd stdio` joined to the daemon: the official SDK clients as the
 * MCP host (v1, legacy era: `elicitation/create`; v2, 2026-07-28: `input_required` answered on the
 * retry) answer an `acp` agent's request to write a file. Allow writes it, decline does not; the
 * run is the host's (a restricted stdio peer's) in `agentd runs`, and no operator approves it.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Json } from '@agentd/test-support';
import { Client as ClientV2 } from '@modelcontextprotocol/client';
import { StdioClientTransport as StdioV2 } from '@modelcontextprotocol/client/stdio';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as StdioV1 } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acpTestProfile } from '../src/supervisor/test-support/acp-test-agent.js';
import { type Agentd, CLI, cleanEnv, runCli, startAgentd } from './support/agentd-process.js';

type Answer = { action: 'accept'; content: { decision: string } } | { action: 'decline' };

let agentd: Agentd;
let root: string;
let work: string;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'agentd-bridge-perm-'));
  work = join(root, 'work');
  mkdirSync(work);
  const { name: _name, ...acp } = acpTestProfile('acp', {
    cwd: work,
    allowFileSystem: true,
    permissions: { default: 'ask', timeoutMs: 60_000 },
  });
  agentd = await startAgentd({
    config: { exposure: 'classic', defaultAgent: 'acp', agents: { acp: acp as unknown as Json } },
  });
}, 60_000);

afterAll(async () => {
  await agentd?.stop();
  if (root !== undefined) rmSync(root, { recursive: true, force: true });
});

const hostEnv = () =>
  cleanEnv({
    AGENTD_SOCKET: agentd.socket,
    XDG_RUNTIME_DIR: mkdtempSync(join(tmpdir(), 'agentd-host-')),
  }) as Record<string, string>;

/** The option titled like `title`, from a prompt's form schema. */
function optionFor(prompt: Json, title: RegExp): string {
  const decision = ((prompt.requestedSchema as Json).properties as Json).decision as Json;
  const option = (decision.oneOf as Json[]).find((o) => title.test(String(o.title)));
  return String(option?.const);
}

const allow = (params: Json): Answer => ({
  action: 'accept',
  content: { decision: optionFor(params, /allow/i) },
});

const structured = (result: unknown): Json => ((result as Json).structuredContent ?? {}) as Json;

/** What the operator sees of a run: `agentd runs --json`, found by run id. */
async function operatorView(runId: string): Promise<Json | undefined> {
  const runs = await runCli(['runs', '--json', '--socket', agentd.socket]);
  expect(runs.code).toBe(0);
  return (JSON.parse(runs.stdout) as Json[]).find((r) => r.runId === runId);
}

/** The run started by the host, as the operator sees it: the host's, answered by the host. */
async function expectHostsRun(value: Json): Promise<void> {
  const runId = String(value.runId);
  const seen = await operatorView(runId);
  expect(seen).toBeDefined();
  const startedBy = (seen?.startedBy ?? {}) as Json;
  expect(startedBy.trust).toBe('restricted');
  // The host's principal is its bridge connection, never the operator's.
  expect(String(startedBy.principal)).toMatch(/^unix:/);
  expect(value.startedBy).toEqual(startedBy);
  // No operator answered: the decision was the caller's, and nothing is left pending.
  const decisions = ((value.events ?? []) as Json[]).filter((e) => e.type === 'permission_decision');
  expect(decisions).toEqual([
    expect.objectContaining({ decision: expect.objectContaining({ by: 'caller' }) }),
  ]);
  expect(value.pendingPermissions ?? []).toEqual([]);
  expect(agentd.logs.some((l) => l.msg === 'permission answered by an operator')).toBe(false);
}

describe('a permission prompt answered by the host through agentd stdio', () => {
  it('v1 SDK host (legacy era): elicitation/create through the bridge; allow writes, decline does not', async () => {
    let answer: (params: Json) => Answer = allow;
    const prompts: Json[] = [];
    const client = new ClientV1({ name: 'host-v1', version: '1' }, { capabilities: { elicitation: {} } });
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      prompts.push(request.params as Json);
      return answer(request.params as Json);
    });
    const transport = new StdioV1({
      command: process.execPath,
      args: [CLI, 'stdio'],
      env: hostEnv(),
      stderr: 'pipe',
    });
    await client.connect(transport);
    try {
      const file = join(work, 'v1-allowed.txt');
      const allowed = structured(
        await client.callTool({
          name: 'command_subagent.spawn',
          arguments: { agent: 'acp', instruction: `tool ${file} from the v1 host`, warm: false },
        }),
      );
      expect(allowed).toMatchObject({ state: 'succeeded', mode: 'acp', output: `wrote ${file}` });
      expect(readFileSync(file, 'utf8')).toBe('from the v1 host');
      expect(prompts).toHaveLength(1);
      expect(String(prompts[0]?.message)).toContain(`Write ${file}`);
      await expectHostsRun(allowed);

      answer = () => ({ action: 'decline' });
      const other = join(work, 'v1-declined.txt');
      const declined = structured(
        await client.callTool({
          name: 'command_subagent.spawn',
          arguments: { agent: 'acp', instruction: `tool ${other} never`, warm: false },
        }),
      );
      expect(declined).toMatchObject({ state: 'succeeded', output: 'rejected' });
      expect(existsSync(other)).toBe(false);
      expect(prompts).toHaveLength(2);
      await expectHostsRun(declined);
      // Both runs are this host's: one principal for its session.
      expect(declined.startedBy).toEqual(allowed.startedBy);
    } finally {
      await client.close();
    }
  }, 120_000);

  it('v2 SDK host (2026-07-28): input_required through the bridge, answered on the retry', async () => {
    const prompts: Json[] = [];
    const client = new ClientV2(
      { name: 'host-v2', version: '1' },
      { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    client.setRequestHandler('elicitation/create', async (request) => {
      prompts.push(request.params as unknown as Json);
      return allow(request.params as unknown as Json);
    });
    const transport = new StdioV2({
      command: process.execPath,
      args: [CLI, 'stdio'],
      env: hostEnv(),
      stderr: 'pipe',
    });
    await client.connect(transport);
    // Every message the host receives from the bridge: the prompt must come as an input_required
    // result, never as a server-to-client request (which 2026-07-28 has none of).
    const received: Json[] = [];
    const deliver = transport.onmessage;
    transport.onmessage = (message) => {
      received.push(message as unknown as Json);
      deliver?.(message);
    };
    try {
      const file = join(work, 'v2-allowed.txt');
      const allowed = structured(
        await client.callTool({
          name: 'command_subagent.spawn',
          arguments: { agent: 'acp', instruction: `tool ${file} from the v2 host`, warm: false },
        }),
      );
      expect(allowed).toMatchObject({ state: 'succeeded', mode: 'acp', output: `wrote ${file}` });
      expect(readFileSync(file, 'utf8')).toBe('from the v2 host');
      expect(prompts).toHaveLength(1);
      expect(String(prompts[0]?.message)).toContain(`Write ${file}`);
      const asked = received.filter((m) => (m.result as Json | undefined)?.resultType === 'input_required');
      expect(asked).toHaveLength(1);
      expect(Object.keys(((asked[0]?.result ?? {}) as Json).inputRequests as Json)).toEqual([
        expect.stringMatching(/^permission_/),
      ]);
      expect(received.filter((m) => m.method === 'elicitation/create')).toEqual([]);
      await expectHostsRun(allowed);
    } finally {
      await client.close();
    }
  }, 120_000);
});

/**
 * The ACP test agent, written with the SDK's agent side. Each prompt's first word is a command
 * (see HELP); argv injects handshake faults and keeps sessions on disk for session/load:
 *   --no-init        never answer initialize
 *   --garbage-init   write a non-JSON line instead of answering initialize
 *   --state DIR      keep each session's prompts in DIR (advertises loadSession)
 *   --resume         advertise session/resume instead of session/load (with --state)
 *   --early-update   send a session/update before answering session/new
 * Test-only: never shipped. Plain JavaScript, so Node runs it without a build. Its stderr says
 * what it observed (`observed session/cancel`, `permission outcome: …`) for the tests to read.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { agent, ndJsonStream, PROTOCOL_VERSION, RequestError } from '@agentclientprotocol/sdk/unstable';

const HELP =
  'echo TEXT | tool PATH CONTENT | read PATH | write PATH CONTENT | term COMMAND | term-big | term-argv | term-bg | ' +
  'usage | history | ' +
  'wait | perm-after-cancel | exit | garbage | bogus-response | foreign-update';

const argv = process.argv.slice(2);
const flag = (name) => argv.includes(name);
const stateDir = argv.includes('--state') ? argv[argv.indexOf('--state') + 1] : undefined;

/** sessionId → { prompts: string[], cancelled: boolean, waiters: Set<() => void> } */
const sessions = new Map();
let clientCaps = {};

const say = (line) => process.stderr.write(`${line}\n`);
const never = () => new Promise(() => {});

function load(sessionId) {
  const file = stateDir && join(stateDir, `${sessionId}.json`);
  if (!file || !existsSync(file)) return undefined;
  return JSON.parse(readFileSync(file, 'utf8')).prompts;
}

function save(sessionId, session) {
  if (stateDir)
    writeFileSync(join(stateDir, `${sessionId}.json`), JSON.stringify({ prompts: session.prompts }));
}

function open(sessionId, prompts = []) {
  const session = { prompts, cancelled: false, waiters: new Set() };
  sessions.set(sessionId, session);
  return session;
}

function cancelledOrWait(session) {
  if (session.cancelled) return Promise.resolve();
  return new Promise((resolve) => session.waiters.add(resolve));
}

const text = (value) => ({ type: 'text', text: value });

async function run(ctx, session, sessionId, words, line) {
  const update = (u) => ctx.client.notify('session/update', { sessionId, update: u });
  const chunk = (value) => update({ sessionUpdate: 'agent_message_chunk', content: text(value) });
  const [command = '', ...rest] = words;
  switch (command) {
    case 'echo':
      await update({
        sessionUpdate: 'agent_thought_chunk',
        content: text(`thinking about ${rest.join(' ')}`),
      });
      await update({
        sessionUpdate: 'plan',
        entries: [{ content: 'answer', status: 'in_progress', priority: 'high' }],
      });
      for (const word of rest) await chunk(`${word} `);
      return 'end_turn';
    case 'tool': {
      const [path = '', ...content] = rest;
      const newText = content.join(' ');
      const toolCall = {
        toolCallId: 'call-1',
        title: `Write ${path}`,
        kind: 'edit',
        status: 'pending',
        rawInput: { path, content: newText },
        locations: [{ path }],
        content: [{ type: 'diff', path, oldText: null, newText }],
      };
      await update({ sessionUpdate: 'tool_call', ...toolCall });
      const answer = await ctx.client.request('session/request_permission', {
        sessionId,
        toolCall: { toolCallId: 'call-1', title: `Write ${path}`, kind: 'edit', rawInput: { path } },
        options: [
          { optionId: 'allow', name: 'Allow once', kind: 'allow_once' },
          { optionId: 'reject', name: 'Reject', kind: 'reject_once' },
        ],
      });
      const allowed = answer.outcome.outcome === 'selected' && answer.outcome.optionId === 'allow';
      if (allowed) await ctx.client.request('fs/write_text_file', { sessionId, path, content: newText });
      await update({
        sessionUpdate: 'tool_call_update',
        toolCallId: 'call-1',
        status: allowed ? 'completed' : 'failed',
        content: [{ type: 'content', content: text(allowed ? 'written' : 'rejected by the user') }],
      });
      await chunk(allowed ? `wrote ${path}` : 'rejected');
      return 'end_turn';
    }
    case 'read':
    case 'write':
      try {
        const result =
          command === 'read'
            ? await ctx.client.request('fs/read_text_file', { sessionId, path: rest[0] })
            : await ctx.client.request('fs/write_text_file', {
                sessionId,
                path: rest[0],
                content: rest.slice(1).join(' '),
              });
        await chunk(command === 'read' ? `content: ${result.content}` : 'written');
      } catch (error) {
        await chunk(`error ${error.code}: ${error.message}`);
      }
      return 'end_turn';
    case 'term': {
      try {
        const terminal = await ctx.client.createTerminal({ sessionId, command: line.slice('term '.length) });
        const exit = await terminal.waitForExit();
        const { output } = await terminal.currentOutput();
        await terminal.release();
        await chunk(`exit ${exit.exitCode}: ${output.trim()}`);
      } catch (error) {
        await chunk(`error ${error.code}: ${error.message}`);
      }
      return 'end_turn';
    }
    case 'term-big':
    case 'term-argv': {
      // A bounded terminal (the newest bytes kept), and a command given with args (no shell).
      const request =
        command === 'term-big'
          ? { command: 'head -c 100000 /dev/zero | tr "\\0" x; printf END', outputByteLimit: 1000 }
          : { command: 'printf', args: ['%s|', 'a b', '$HOME'] };
      const terminal = await ctx.client.createTerminal({ sessionId, ...request });
      await terminal.waitForExit();
      const { output, truncated } = await terminal.currentOutput();
      await terminal.release();
      await chunk(`${output.length} ${truncated} ${output.slice(-12)}`);
      return 'end_turn';
    }
    case 'term-bg': {
      // Prints its pid and stays: the client must kill it when the run ends.
      const terminal = await ctx.client.createTerminal({ sessionId, command: 'echo $$; exec sleep 60' });
      let output = '';
      while (!/\d+\n/.test(output)) {
        output = (await terminal.currentOutput()).output;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      await chunk(`pid ${output.trim()}`);
      return 'end_turn';
    }
    case 'usage':
      await update({
        sessionUpdate: 'usage_update',
        used: 1200,
        size: 200000,
        cost: { amount: 0.25, currency: 'USD' },
      });
      await chunk('counted');
      return {
        stopReason: 'end_turn',
        usage: { totalTokens: 17, inputTokens: 10, outputTokens: 5, cachedReadTokens: 2 },
      };
    case 'history':
      await chunk(JSON.stringify({ sessionId, prompts: session.prompts }));
      return 'end_turn';
    case 'wait':
      await chunk('waiting');
      await cancelledOrWait(session);
      return 'cancelled';
    case 'perm-after-cancel': {
      await chunk('waiting');
      await cancelledOrWait(session);
      const answer = await ctx.client.request('session/request_permission', {
        sessionId,
        toolCall: { toolCallId: 'late', title: 'Late tool', kind: 'execute' },
        options: [{ optionId: 'allow', name: 'Allow', kind: 'allow_once' }],
      });
      say(`permission outcome: ${answer.outcome.outcome}`);
      return 'cancelled';
    }
    case 'exit':
      await chunk('leaving');
      process.exit(3);
      break;
    case 'garbage':
      process.stdout.write('this is not json\n');
      return never();
    case 'bogus-response':
      process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', id: 9999, result: {} })}\n`);
      return never();
    case 'foreign-update':
      await ctx.client.notify('session/update', {
        sessionId: 'someone-else',
        update: { sessionUpdate: 'agent_message_chunk', content: text('psst') },
      });
      return never();
    default:
      await chunk(`unknown command; ${HELP}`);
      return 'end_turn';
  }
}

const app = agent({ name: 'acp-test-agent' })
  .onRequest('initialize', ({ params }) => {
    clientCaps = params.clientCapabilities ?? {};
    say(`client capabilities: ${JSON.stringify(clientCaps)}`);
    if (flag('--no-init')) return never();
    if (flag('--garbage-init')) {
      process.stdout.write('{"jsonrpc": oops\n');
      return never();
    }
    const sessionCapabilities = flag('--resume') ? { resume: {} } : {};
    return {
      protocolVersion: PROTOCOL_VERSION,
      agentCapabilities: { loadSession: stateDir !== undefined && !flag('--resume'), sessionCapabilities },
    };
  })
  .onRequest('session/new', async ({ params, client }) => {
    const sessionId = `sess-${process.pid}-${sessions.size + 1}`;
    say(`session/new cwd=${params.cwd} mcpServers=${params.mcpServers.length}`);
    open(sessionId);
    if (flag('--early-update')) {
      await client.notify('session/update', {
        sessionId,
        update: {
          sessionUpdate: 'plan',
          entries: [{ content: 'early', status: 'pending', priority: 'low' }],
        },
      });
    }
    return { sessionId };
  })
  .onRequest('session/load', async ({ params, client }) => {
    const prompts = load(params.sessionId);
    if (prompts === undefined) throw RequestError.resourceNotFound(params.sessionId);
    say(`session/load ${params.sessionId}`);
    open(params.sessionId, prompts);
    // ACP: a load replays the conversation before it answers.
    for (const prompt of prompts) {
      await client.notify('session/update', {
        sessionId: params.sessionId,
        update: { sessionUpdate: 'user_message_chunk', content: text(prompt) },
      });
    }
    return {};
  })
  .onRequest('session/resume', ({ params }) => {
    const prompts = load(params.sessionId);
    if (prompts === undefined) throw RequestError.resourceNotFound(params.sessionId);
    say(`session/resume ${params.sessionId}`);
    open(params.sessionId, prompts);
    return {};
  })
  .onRequest('session/prompt', async (ctx) => {
    const { sessionId, prompt } = ctx.params;
    const session = sessions.get(sessionId);
    if (session === undefined) throw RequestError.resourceNotFound(sessionId);
    session.cancelled = false;
    const line = prompt.map((block) => (block.type === 'text' ? block.text : '')).join('');
    session.prompts.push(line);
    save(sessionId, session);
    const outcome = await run(ctx, session, sessionId, line.trim().split(/\s+/), line);
    return typeof outcome === 'string' ? { stopReason: outcome } : outcome;
  })
  .onNotification('session/cancel', ({ params }) => {
    say('observed session/cancel');
    const session = sessions.get(params.sessionId);
    if (session === undefined) return;
    session.cancelled = true;
    for (const waiter of session.waiters) waiter();
    session.waiters.clear();
  });

const connection = app.connect(ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin)));
void connection.closed.then(() => process.exit(0));

/** End to end: an async subagent.spawn as an MCP task (2026-07-28 extension and 2025-11-25), over the daemon's unix socket. */

import { type Json, modernMeta, NdjsonClient } from '@agentd/test-support';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type Agentd, startAgentd } from './support/agentd-process.js';

const TASKS = { extensions: { 'io.modelcontextprotocol/tasks': {} } };
let agentd: Agentd;

beforeAll(async () => {
  agentd = await startAgentd({ args: ['--exposure', 'classic'] });
});
afterAll(async () => {
  await agentd.stop();
});

/** A modern request declaring `capabilities`; resolves with the whole response. */
function modern(c: NdjsonClient, method: string, params: Json, capabilities: Json = TASKS): Promise<Json> {
  return c.request(method, {
    ...params,
    _meta: modernMeta({ 'io.modelcontextprotocol/clientCapabilities': capabilities }),
  });
}
function spawn(c: NdjsonClient, args: Json, capabilities: Json = TASKS): Promise<Json> {
  return modern(c, 'tools/call', { name: 'command_subagent.spawn', arguments: args }, capabilities);
}
async function taskOf(c: NdjsonClient, taskId: string, capabilities: Json = TASKS): Promise<Json> {
  const answer = await modern(c, 'tasks/get', { taskId }, capabilities);
  if (answer.result === undefined) throw new Error(JSON.stringify(answer.error));
  return answer.result as Json;
}
/** Reads `get` until `done` holds; on timeout the error shows the task as last read. */
function until(get: () => Promise<Json>, done: (t: Json) => boolean): Promise<Json> {
  return vi.waitFor(
    async () => {
      const value = await get();
      if (!done(value)) throw new Error(`the task did not get there: ${JSON.stringify(value)}`);
      return value;
    },
    { timeout: 15_000, interval: 25 },
  );
}

describe('subagent.spawn as a task', () => {
  it('declares the extension; a sync spawn or an async one without the extension stays a normal call', async () => {
    const c = await NdjsonClient.connect(agentd.socket);
    try {
      const discover = await modern(c, 'server/discover', {});
      expect((discover.result as Json).capabilities).toMatchObject({ extensions: TASKS.extensions });
      const plain = await spawn(c, { instruction: 'echo plain' });
      expect(plain.result).toMatchObject({
        resultType: 'complete',
        structuredContent: { state: 'succeeded' },
      });
      const handle = await spawn(c, { instruction: 'echo later', async: true }, {});
      expect(handle.result).toMatchObject({
        resultType: 'complete',
        structuredContent: { state: 'running' },
      });
    } finally {
      c.end();
    }
  });

  it('async with the extension: a task that follows the run and outlives the connection', async () => {
    const first = await NdjsonClient.connect(agentd.socket);
    const created = (await spawn(first, { instruction: 'sleep 400', async: true })).result as Json;
    expect(created).toMatchObject({ resultType: 'task', status: 'working', ttlMs: 6 * 60 * 60 * 1000 });
    expect((await taskOf(first, created.taskId as string)).status).toBe('working');
    first.end();
    const second = await NdjsonClient.connect(agentd.socket);
    try {
      const done = await until(
        () => taskOf(second, created.taskId as string),
        (t) => t.status === 'completed',
      );
      expect((done.result as Json).structuredContent).toMatchObject({
        state: 'succeeded',
        output: 'slept 400 ms',
      });
    } finally {
      second.end();
    }
  });

  it('a listen stream watching the task gets notifications/tasks as the run ends', async () => {
    const c = await NdjsonClient.connect(agentd.socket);
    try {
      const created = (await spawn(c, { instruction: 'sleep 300', async: true })).result as Json;
      c.send({
        jsonrpc: '2.0',
        id: 'listen-1',
        method: 'subscriptions/listen',
        params: {
          notifications: { taskIds: [created.taskId] },
          _meta: modernMeta({ 'io.modelcontextprotocol/clientCapabilities': TASKS }),
        },
      });
      const ack = await c.waitFor((m) => m.method === 'notifications/subscriptions/acknowledged');
      expect((ack.params as Json).notifications).toEqual({ taskIds: [created.taskId] });
      const done = await c.waitFor(
        (m) => m.method === 'notifications/tasks' && (m.params as Json).status === 'completed',
      );
      expect(done.params).toMatchObject({
        taskId: created.taskId,
        result: { structuredContent: { state: 'succeeded' } },
        _meta: { 'io.modelcontextprotocol/subscriptionId': 'listen-1' },
      });
    } finally {
      c.end();
    }
  });

  it('tasks/cancel cancels the run', async () => {
    const c = await NdjsonClient.connect(agentd.socket);
    try {
      const since = agentd.logs.length;
      const created = (await spawn(c, { instruction: 'sleep 30000', async: true })).result as Json;
      const taskId = created.taskId as string;
      await agentd.waitForLog((l) => l.msg === 'subagent starting', { since });
      expect((await modern(c, 'tasks/cancel', { taskId })).result).toMatchObject({ resultType: 'complete' });
      expect((await taskOf(c, taskId)).status).toBe('cancelled');
      const cancelled = await agentd.waitForLog((l) => l.msg === 'subagent cancel requested', { since });
      expect(cancelled).toMatchObject({ reason: 'aborted by the caller' });
      const bad = await modern(c, 'tasks/get', { taskId: 'no-such-task' });
      expect(bad.error).toEqual({ code: -32602, message: 'Failed to retrieve task: Task not found' });
    } finally {
      c.end();
    }
  });

  it('a warm session waiting for its next turn is input_required; tasks/update sends the turn; decline ends it', async () => {
    const c = await NdjsonClient.connect(agentd.socket);
    const caps = { ...TASKS, elicitation: {} };
    try {
      const created = (await spawn(c, { instruction: 'echo first', async: true, warm: true }, caps))
        .result as Json;
      const taskId = created.taskId as string;
      const ready = await until(
        () => taskOf(c, taskId, caps),
        (t) => t.status === 'input_required',
      );
      expect(Object.keys(ready.inputRequests as Json)).toEqual(['turn_1']);
      expect((ready.inputRequests as Json).turn_1).toMatchObject({ method: 'elicitation/create' });
      const wrong = await modern(c, 'tasks/update', { taskId, inputResponses: [] }, caps);
      expect(wrong.error).toMatchObject({ code: -32602 });
      const ack = await modern(
        c,
        'tasks/update',
        { taskId, inputResponses: { turn_1: { action: 'accept', content: { message: 'uppercase again' } } } },
        caps,
      );
      expect(ack.result).toMatchObject({ resultType: 'complete' });
      const next = await until(
        () => taskOf(c, taskId, caps),
        (t) => t.status === 'input_required' && 'turn_2' in ((t.inputRequests as Json) ?? {}),
      );
      expect(Object.keys(next.inputRequests as Json)).toEqual(['turn_2']);
      await modern(c, 'tasks/update', { taskId, inputResponses: { turn_2: { action: 'decline' } } }, caps);
      const done = await until(
        () => taskOf(c, taskId, caps),
        (t) => t.status === 'completed',
      );
      expect((done.result as Json).structuredContent).toMatchObject({
        state: 'succeeded',
        turns: 2,
        lastReply: { text: 'AGAIN' },
      });
    } finally {
      c.end();
    }
  });

  it('2025-11-25: a task-augmented spawn answers {task}; tasks/result returns the run', async () => {
    const c = await NdjsonClient.connect(agentd.socket);
    try {
      const init = await c.initialize('2025-11-25');
      expect(init.capabilities).toMatchObject({ tasks: { requests: { tools: { call: {} } } } });
      const created = await c.legacy('tools/call', {
        name: 'command_subagent.spawn',
        arguments: { instruction: 'count one two', async: true },
        task: { ttl: 60_000 },
      });
      const task = created.task as Json;
      expect(task).toMatchObject({ status: 'working', ttl: 60_000 });
      const result = await c.legacy('tasks/result', { taskId: task.taskId });
      expect(result.structuredContent).toMatchObject({ state: 'succeeded', output: '2 words' });
      expect((await c.legacy('tasks/list', {})).tasks).toEqual(
        expect.arrayContaining([expect.objectContaining({ taskId: task.taskId, status: 'completed' })]),
      );
    } finally {
      c.end();
    }
  });
});

describe('spawn tasks over HTTP are bound to their bearer principal', () => {
  it('another principal cannot see or cancel the task; its owner can', async () => {
    const tokens = { alice: 'alice-token-0123456789abcdef', bob: 'bob-token-0123456789abcdef0' };
    const http = await startAgentd({
      http: true,
      args: ['--exposure', 'classic'],
      config: {
        auth: {
          bearerTokens: [
            { name: 'alice', token: tokens.alice },
            { name: 'bob', token: tokens.bob },
          ],
        },
      },
    });
    let nextId = 1;
    const post = async (who: keyof typeof tokens, method: string, params: Json): Promise<Json> => {
      const name = method === 'tools/call' ? params.name : params.taskId;
      const response = await fetch(http.httpUrl as string, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${tokens[who]}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2026-07-28',
          'mcp-method': method,
          ...(typeof name === 'string' ? { 'mcp-name': name } : {}),
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: nextId++,
          method,
          params: { ...params, _meta: modernMeta({ 'io.modelcontextprotocol/clientCapabilities': TASKS }) },
        }),
      });
      const text = await response.text();
      const lines = text.split('\n').filter((l) => l.startsWith('data:'));
      const body = lines.length > 0 ? (lines.at(-1) as string).slice(5) : text;
      return JSON.parse(body) as Json;
    };
    try {
      const created = await post('alice', 'tools/call', {
        name: 'command_subagent.spawn',
        arguments: { instruction: 'sleep 30000', async: true },
      });
      const taskId = (created.result as Json).taskId as string;
      expect(created.result).toMatchObject({ resultType: 'task', status: 'working' });
      const notFound = { code: -32602, message: 'Failed to retrieve task: Task not found' };
      expect((await post('bob', 'tasks/get', { taskId })).error).toEqual(notFound);
      expect((await post('bob', 'tasks/cancel', { taskId })).error).toEqual(notFound);
      expect(((await post('alice', 'tasks/get', { taskId })).result as Json).status).toBe('working');
      expect((await post('alice', 'tasks/cancel', { taskId })).result).toMatchObject({
        resultType: 'complete',
      });
      expect(((await post('alice', 'tasks/get', { taskId })).result as Json).status).toBe('cancelled');
    } finally {
      await http.stop();
    }
  });
});

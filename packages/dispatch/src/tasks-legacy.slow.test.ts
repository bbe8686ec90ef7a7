/** 2025-11-25 tasks through the real server core on unix sockets: capability, task-augmented calls, get/result/list/cancel, input. */
import type { JsonObject } from '@agentd/rpc-frame';
import type { NdjsonClient, SocketHarness } from '@agentd/test-support';
import { afterEach, describe, expect, it } from 'vitest';
import { serve, taskDispatcher, until } from './test-support/task-tools.js';

let harness: SocketHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

let ids = 0;
async function session(peer: NdjsonClient, version = '2025-11-25', capabilities: JsonObject = {}) {
  const init = await peer.request(
    'initialize',
    { protocolVersion: version, capabilities, clientInfo: { name: 't', version: '1' } },
    `i${++ids}`,
  );
  peer.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  return init.result as JsonObject;
}
function rq(peer: NdjsonClient, method: string, params: JsonObject) {
  return peer.request(method, params, `l${++ids}`);
}
async function ok(peer: NdjsonClient, method: string, params: JsonObject): Promise<JsonObject> {
  const answer = await rq(peer, method, params);
  if (answer.result === undefined) throw new Error(JSON.stringify(answer.error));
  return answer.result;
}

describe('2025-11-25 tasks', () => {
  it('the tasks capability and execution.taskSupport only from 2025-11-25; never the extension', async () => {
    const { dispatcher } = taskDispatcher();
    harness = await serve(dispatcher);
    const current = await harness.connect('management');
    const init = await session(current);
    expect(init.capabilities).toMatchObject({
      tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } },
    });
    expect(init.capabilities).not.toHaveProperty('extensions');
    const tools = (await ok(current, 'tools/list', {})).tools as JsonObject[];
    expect(tools.find((t) => t.name === 'gated')).toMatchObject({ execution: { taskSupport: 'optional' } });
    expect(tools.find((t) => t.name === 'strict')).toMatchObject({ execution: { taskSupport: 'required' } });
    expect(tools.find((t) => t.name === 'sync')).not.toHaveProperty('execution');

    const older = await harness.connect('management');
    const oldInit = await session(older, '2025-06-18');
    expect(oldInit.capabilities).not.toHaveProperty('tasks');
    const oldTools = (await ok(older, 'tools/list', {})).tools as JsonObject[];
    expect(oldTools.find((t) => t.name === 'gated')).not.toHaveProperty('execution');
    expect((await rq(older, 'tasks/list', {})).error?.code).toBe(-32601);
  });

  it('a task-augmented call: {task}, tasks/get, tasks/list, then tasks/result blocks until the result', async () => {
    const { dispatcher, gate } = taskDispatcher();
    harness = await serve(dispatcher);
    const peer = await harness.connect('management');
    await session(peer);
    const created = await ok(peer, 'tools/call', { name: 'gated', arguments: {}, task: { ttl: 120_000 } });
    expect(created.task).toMatchObject({ status: 'working', ttl: 120_000, pollInterval: 1000 });
    expect(created.task).not.toHaveProperty('ttlMs');
    const taskId = (created.task as JsonObject).taskId as string;
    expect(await ok(peer, 'tasks/get', { taskId })).toMatchObject({ taskId, status: 'working' });
    expect((await ok(peer, 'tasks/list', {})).tasks).toEqual([expect.objectContaining({ taskId })]);
    const result = rq(peer, 'tasks/result', { taskId });
    gate.open('legacy');
    expect((await result).result).toEqual({
      content: [{ type: 'text', text: 'gated: legacy' }],
      _meta: { 'io.modelcontextprotocol/related-task': { taskId } },
    });
    expect(await ok(peer, 'tasks/get', { taskId })).toMatchObject({ status: 'completed' });
  });

  it('rules of the revision: required needs task, task on a plain tool is -32601, isError fails the task, terminal cancel is -32602', async () => {
    const { dispatcher, gate } = taskDispatcher();
    harness = await serve(dispatcher);
    const peer = await harness.connect('management');
    await session(peer);
    expect((await rq(peer, 'tools/call', { name: 'strict', arguments: {} })).error).toMatchObject({
      code: -32601,
    });
    expect((await rq(peer, 'tools/call', { name: 'sync', arguments: {}, task: {} })).error).toMatchObject({
      code: -32601,
    });
    const plain = rq(peer, 'tools/call', { name: 'gated', arguments: {} });
    await until(
      async () => gate.signals.length,
      (n) => n === 1,
    );
    gate.open('plain');
    expect((await plain).result).toMatchObject({ content: [{ text: 'gated: plain' }] });

    const created = await ok(peer, 'tools/call', { name: 'gated', arguments: {}, task: {} });
    const taskId = (created.task as JsonObject).taskId as string;
    await until(
      async () => gate.signals.length,
      (n) => n === 2,
    );
    gate.open('tool-error');
    const failed = await until(
      () => ok(peer, 'tasks/get', { taskId }),
      (t) => t.status === 'failed',
    );
    expect(failed.statusMessage).toBe('the job failed');
    expect((await ok(peer, 'tasks/result', { taskId })).isError).toBe(true);
    expect((await rq(peer, 'tasks/cancel', { taskId })).error).toEqual({
      code: -32602,
      message: "Cannot cancel task: already in terminal status 'failed'",
    });
  });

  it('cancel answers the cancelled task; unknown and foreign ids are -32602; tasks/list shows only the caller’s', async () => {
    const { dispatcher, gate } = taskDispatcher();
    harness = await serve(dispatcher);
    const owner = await harness.connect('management');
    await session(owner);
    const other = await harness.connect('stdio');
    await session(other);
    const taskId = (
      (await ok(owner, 'tools/call', { name: 'gated', arguments: {}, task: {} })).task as JsonObject
    ).taskId as string;
    expect((await ok(other, 'tasks/list', {})).tasks).toEqual([]);
    for (const method of ['tasks/get', 'tasks/result', 'tasks/cancel']) {
      expect((await rq(other, method, { taskId })).error, method).toEqual({
        code: -32602,
        message: 'Failed to retrieve task: Task not found',
      });
    }
    expect((await rq(owner, 'tasks/list', { cursor: 'nonsense' })).error?.code).toBe(-32602);
    const cancelled = await ok(owner, 'tasks/cancel', { taskId });
    expect(cancelled).toMatchObject({ taskId, status: 'cancelled' });
    expect(gate.signals[0]?.aborted).toBe(true);
  });

  it('input: a parked elicitation is sent on the tasks/result stream tagged with the task', async () => {
    const { dispatcher } = taskDispatcher();
    harness = await serve(dispatcher);
    const peer = await harness.connect('management');
    await session(peer, '2025-11-25', { elicitation: {} });
    const taskId = (
      (await ok(peer, 'tools/call', { name: 'asks', arguments: {}, task: {} })).task as JsonObject
    ).taskId as string;
    await until(
      () => ok(peer, 'tasks/get', { taskId }),
      (t) => t.status === 'input_required',
    );
    const asked: JsonObject[] = [];
    peer.onRequest = (message) => {
      asked.push(message.params as JsonObject);
      return { action: 'accept', content: { name: 'Grace' } };
    };
    const result = await ok(peer, 'tasks/result', { taskId });
    expect(result.content).toEqual([{ type: 'text', text: 'Hello, Grace!' }]);
    expect(asked).toEqual([
      expect.objectContaining({
        message: 'Name?',
        _meta: { 'io.modelcontextprotocol/related-task': { taskId } },
      }),
    ]);
  });
});

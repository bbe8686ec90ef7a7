/** The 2026-07-28 tasks extension through the real server core on unix sockets: lifecycle, input, cancel, TTL, principals, bad input. */
import type { JsonObject } from '@agentd/rpc-frame';
import { MemoryTaskStore } from '@agentd/tasks';
import type { NdjsonClient, SocketHarness } from '@agentd/test-support';
import { afterEach, describe, expect, it } from 'vitest';
import { serve, TASKS, taskDispatcher, until } from './test-support/task-tools.js';

let harness: SocketHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

let ids = 0;
function call(peer: NdjsonClient, name: string, caps: JsonObject = TASKS, extra: JsonObject = {}) {
  return peer.modern('tools/call', { name, arguments: {}, ...extra }, `c${++ids}`, caps);
}
function task(peer: NdjsonClient, method: string, params: JsonObject, caps: JsonObject = TASKS) {
  return peer.modern(method, params, `t${++ids}`, caps);
}
async function get(peer: NdjsonClient, taskId: string): Promise<JsonObject> {
  const answer = await task(peer, 'tasks/get', { taskId });
  if (answer.result === undefined) throw new Error(JSON.stringify(answer.error));
  return answer.result;
}

describe('tasks extension (2026-07-28)', () => {
  it('discover advertises the extension (not the 2025-11-25 slot); a declaring call gets a flat CreateTaskResult', async () => {
    const { dispatcher, gate } = taskDispatcher();
    harness = await serve(dispatcher);
    const peer = await harness.connect('management');
    const discover = await peer.modern('server/discover', {}, 'd');
    expect(discover.result?.capabilities).toMatchObject({
      extensions: { 'io.modelcontextprotocol/tasks': {} },
    });
    expect(discover.result?.capabilities).not.toHaveProperty('tasks');

    const created = (await call(peer, 'gated')).result as JsonObject;
    expect(created).toMatchObject({
      resultType: 'task',
      status: 'working',
      ttlMs: 3_600_000,
      pollIntervalMs: 1000,
    });
    expect(created.taskId).toMatch(/^[0-9a-f]{32}$/);
    for (const absent of [
      'task',
      'result',
      'error',
      'inputRequests',
      'requestState',
      'ttl',
      'pollInterval',
    ]) {
      expect(created).not.toHaveProperty(absent);
    }
    const taskId = created.taskId as string;
    expect(await get(peer, taskId)).toMatchObject({ resultType: 'complete', taskId, status: 'working' });
    gate.open('ok');
    const done = await until(
      () => get(peer, taskId),
      (t) => t.status === 'completed',
    );
    expect(done.result).toEqual({ resultType: 'complete', content: [{ type: 'text', text: 'gated: ok' }] });
    expect(done).not.toHaveProperty('requestState');
  });

  it('without the extension: optional tools run normally, required ones and tasks/* are -32021', async () => {
    const { dispatcher, gate } = taskDispatcher();
    harness = await serve(dispatcher);
    const peer = await harness.connect('management');
    const plain = call(peer, 'gated', {});
    await until(
      async () => gate.signals.length,
      (n) => n === 1,
    );
    gate.open('sync');
    expect((await plain).result).toMatchObject({
      resultType: 'complete',
      content: [{ text: 'gated: sync' }],
    });
    const required = await call(peer, 'strict', {});
    expect(required.error).toEqual({
      code: -32021,
      message: 'Missing required client capability',
      data: { requiredCapabilities: { extensions: { 'io.modelcontextprotocol/tasks': {} } } },
    });
    for (const method of ['tasks/get', 'tasks/update', 'tasks/cancel']) {
      const answer = await task(peer, method, { taskId: 'x', inputResponses: {} }, {});
      expect(answer.error?.code, method).toBe(-32021);
    }
    for (const method of ['tasks/result', 'tasks/list']) {
      expect((await task(peer, method, { taskId: 'x' })).error?.code, method).toBe(-32601);
    }
    // A sync tool never becomes a task, and a 2025-11-25 style `task` hint is ignored.
    const hinted = await call(peer, 'sync', TASKS, { task: { ttl: 1000 } });
    expect(hinted.result).toMatchObject({ resultType: 'complete', content: [{ text: 'plain' }] });
  });

  it('input: input_required with inputRequests, tasks/update answers it (wrong shapes are -32602), then completed', async () => {
    const { dispatcher } = taskDispatcher();
    harness = await serve(dispatcher);
    const peer = await harness.connect('management');
    const caps = { ...TASKS, elicitation: {} };
    const taskId = ((await call(peer, 'asks', caps)).result as JsonObject).taskId as string;
    const parked = await until(
      () => get(peer, taskId),
      (t) => t.status === 'input_required',
    );
    expect(parked.inputRequests).toEqual({
      name: {
        method: 'elicitation/create',
        params: {
          mode: 'form',
          message: 'Name?',
          requestedSchema: { type: 'object', properties: { name: { type: 'string' } } },
        },
      },
    });
    const notObject = await task(peer, 'tasks/update', { taskId, inputResponses: 'Ada' });
    expect(notObject.error).toMatchObject({
      code: -32602,
      message: expect.stringContaining('inputResponses'),
    });
    const badAnswer = await task(peer, 'tasks/update', {
      taskId,
      inputResponses: { name: { action: 'maybe' } },
    });
    expect(badAnswer.error).toMatchObject({ code: -32602, message: expect.stringContaining('"name"') });
    expect((await get(peer, taskId)).status).toBe('input_required');
    const unknownKey = await task(peer, 'tasks/update', { taskId, inputResponses: { other: { x: 1 } } });
    expect(unknownKey.result).toEqual({ resultType: 'complete', _meta: expect.any(Object) });
    const ack = await task(peer, 'tasks/update', {
      taskId,
      inputResponses: { name: { action: 'accept', content: { name: 'Ada' } } },
    });
    expect(ack.result).toEqual({ resultType: 'complete', _meta: expect.any(Object) });
    const done = await until(
      () => get(peer, taskId),
      (t) => t.status === 'completed',
    );
    expect(done.result).toMatchObject({ content: [{ text: 'Hello, Ada!' }] });
  });

  it('without elicitation declared the task does not ask: it completes with an isError result', async () => {
    const { dispatcher } = taskDispatcher();
    harness = await serve(dispatcher);
    const peer = await harness.connect('management');
    const taskId = ((await call(peer, 'asks')).result as JsonObject).taskId as string;
    const done = await until(
      () => get(peer, taskId),
      (t) => t.status === 'completed',
    );
    expect(done.result).toMatchObject({ isError: true });
  });

  it('cancel: ack, cancelled, the handler is aborted; cancel after completion is the same ack', async () => {
    const { dispatcher, gate } = taskDispatcher();
    harness = await serve(dispatcher);
    const peer = await harness.connect('management');
    const taskId = ((await call(peer, 'gated')).result as JsonObject).taskId as string;
    const ack = await task(peer, 'tasks/cancel', { taskId });
    expect(ack.result).toEqual({ resultType: 'complete', _meta: expect.any(Object) });
    expect(await get(peer, taskId)).toMatchObject({ status: 'cancelled' });
    expect(gate.signals[0]?.aborted).toBe(true);
    gate.open('too late');
    expect((await get(peer, taskId)).status).toBe('cancelled');
    const again = await task(peer, 'tasks/cancel', { taskId });
    expect(again.result).toEqual({ resultType: 'complete', _meta: expect.any(Object) });
  });

  it('failures: a protocol error fails the task with the error; a thrown Error completes with isError', async () => {
    const { dispatcher, gate } = taskDispatcher();
    harness = await serve(dispatcher);
    const peer = await harness.connect('management');
    const broken = ((await call(peer, 'broken')).result as JsonObject).taskId as string;
    const failed = await until(
      () => get(peer, broken),
      (t) => t.status === 'failed',
    );
    expect(failed.error).toEqual({ code: -32603, message: 'the job crashed' });
    expect(failed).not.toHaveProperty('result');
    const job = ((await call(peer, 'gated')).result as JsonObject).taskId as string;
    gate.open('tool-error');
    const completed = await until(
      () => get(peer, job),
      (t) => t.status === 'completed',
    );
    expect(completed.result).toMatchObject({ isError: true, content: [{ text: 'the job failed' }] });
  });

  it('bad ids: unknown, another principal, malformed — -32602, identical for unknown and foreign', async () => {
    const { dispatcher } = taskDispatcher();
    harness = await serve(dispatcher);
    const owner = await harness.connect('management');
    const other = await harness.connect('stdio');
    const taskId = ((await call(owner, 'gated')).result as JsonObject).taskId as string;
    const unknown = await task(other, 'tasks/get', { taskId: 'f'.repeat(32) });
    const foreign = await task(other, 'tasks/get', { taskId });
    expect(unknown.error).toEqual({ code: -32602, message: 'Failed to retrieve task: Task not found' });
    expect(foreign.error).toEqual(unknown.error);
    expect((await task(other, 'tasks/cancel', { taskId })).error).toEqual(unknown.error);
    expect((await task(other, 'tasks/update', { taskId, inputResponses: {} })).error).toEqual(unknown.error);
    expect((await get(owner, taskId)).status).toBe('working');
    expect((await task(owner, 'tasks/get', {})).error?.code).toBe(-32602);
    expect((await task(owner, 'tasks/get', { taskId: 7 })).error?.code).toBe(-32602);
  });

  it('arguments are validated before a task is created: invalid ones are an isError result, not a task', async () => {
    const { dispatcher } = taskDispatcher();
    harness = await serve(dispatcher);
    const peer = await harness.connect('management');
    const bad = (await call(peer, 'typed', TASKS, { arguments: { n: 'x' } })).result as JsonObject;
    expect(bad).toMatchObject({ resultType: 'complete', isError: true });
    expect(bad).not.toHaveProperty('taskId');
    const good = (await call(peer, 'typed', TASKS, { arguments: { n: 3 } })).result as JsonObject;
    const done = await until(
      () => get(peer, good.taskId as string),
      (t) => t.status === 'completed',
    );
    expect(done.result).toMatchObject({ content: [{ text: 'n=3' }] });
  });

  it('a principal past its task limit is told so in a tool error; others are unaffected', async () => {
    const store = new MemoryTaskStore({ maxTasksPerOwner: 1 });
    const { dispatcher } = taskDispatcher({ tasks: { store } });
    harness = await serve(dispatcher);
    const peer = await harness.connect('management');
    expect((await call(peer, 'gated')).result).toMatchObject({ resultType: 'task' });
    expect((await call(peer, 'gated')).result).toMatchObject({
      isError: true,
      content: [{ text: 'too many tasks: at most 1 per principal' }],
    });
    const other = await harness.connect('stdio');
    expect((await call(other, 'gated')).result).toMatchObject({ resultType: 'task' });
    await store.close();
  });

  it('TTL: the run is stopped and the task answers "Task has expired"; tasks outlive their connection', async () => {
    const { dispatcher, gate } = taskDispatcher({ tasks: { pollIntervalMs: 50 } });
    harness = await serve(dispatcher);
    const first = await harness.connect('management');
    const short = ((await call(first, 'short')).result as JsonObject).taskId as string;
    const long = ((await call(first, 'gated')).result as JsonObject).taskId as string;
    expect(((await task(first, 'tasks/get', { taskId: long })).result as JsonObject).pollIntervalMs).toBe(50);
    first.stream.destroy();
    const second = await harness.connect('management');
    await until(async () => gate.signals[0]?.aborted === true, Boolean);
    const expired = await task(second, 'tasks/get', { taskId: short });
    expect(expired.error).toEqual({ code: -32602, message: 'Failed to retrieve task: Task has expired' });
    expect((await get(second, long)).status).toBe('working');
    gate.open('after reconnect');
    expect(
      (
        await until(
          () => get(second, long),
          (t) => t.status === 'completed',
        )
      ).result,
    ).toMatchObject({
      content: [{ text: 'gated: after reconnect' }],
    });
  });

  it('start: handler — input by multi-round-trip first, then the handler detaches into a task', async () => {
    const { dispatcher } = taskDispatcher();
    harness = await serve(dispatcher);
    const peer = await harness.connect('management');
    const caps = { ...TASKS, elicitation: {} };
    const round1 = (await call(peer, 'later', caps)).result as JsonObject;
    expect(round1).toMatchObject({
      resultType: 'input_required',
      inputRequests: { who: expect.any(Object) },
    });
    expect(round1).not.toHaveProperty('taskId');
    const round2 = (
      await call(peer, 'later', caps, {
        inputResponses: { who: { action: 'accept', content: { name: 'Alice' } } },
        requestState: round1.requestState as string,
      })
    ).result as JsonObject;
    expect(round2).toMatchObject({ resultType: 'task', status: 'working' });
    expect(round2).not.toHaveProperty('requestState');
    const done = await until(
      () => get(peer, round2.taskId as string),
      (t) => t.status === 'completed',
    );
    expect(done.result).toMatchObject({ content: [{ text: 'task yes for Alice' }] });
  });
});

/**
 * Tasks with the official TypeScript SDKs over loopback HTTP against the fixture: the v1 client's
 * experimental tasks API drives 2025-11-25 tasks end to end (elicitation through `tasks/result`
 * included); the v2 client, which has no task runtime, drives the 2026-07-28 extension with
 * explicit requests (its transport for the call, `client.request` for `tasks/*`).
 */
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as HttpV2,
  type JSONRPCMessage,
  type StandardSchemaV1,
} from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as HttpV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CallToolResultSchema,
  ElicitRequestSchema,
  TaskStatusNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type EverythingServer, startEverythingServer } from './serve-everything.js';

const TASKS = { 'io.modelcontextprotocol/tasks': {} };
let server: EverythingServer;

beforeAll(async () => {
  server = await startEverythingServer({ port: 0 });
});
afterAll(async () => {
  await server.close();
});

type Json = Record<string, unknown>;

/** Accepts any result object (the v2 client validates against what we give it). */
const anyResult: StandardSchemaV1<Json> = {
  '~standard': { version: 1, vendor: 'agentd-test', validate: (value) => ({ value: value as Json }) },
};

describe('SDK v1 client: 2025-11-25 tasks (experimental API)', () => {
  it('callToolStream creates, polls and collects a task; list, get and cancel work', async () => {
    const client = new ClientV1({ name: 'v1-tasks', version: '1.0.0' });
    const statuses: Json[] = [];
    client.setNotificationHandler(TaskStatusNotificationSchema, (n) => {
      statuses.push(n.params as Json);
    });
    await client.connect(new HttpV1(new URL(server.url)));
    try {
      expect(client.getServerCapabilities()?.tasks).toMatchObject({ requests: { tools: { call: {} } } });
      await client.listTools();
      const seen: string[] = [];
      let final: Json | undefined;
      const stream = client.experimental.tasks.callToolStream(
        { name: 'slow_compute', arguments: { seconds: 0.2, label: 'v1' } },
        CallToolResultSchema,
        { task: { ttl: 60_000 } },
      );
      for await (const message of stream) {
        seen.push(message.type);
        if (message.type === 'result') final = message.result as Json;
        if (message.type === 'error') throw message.error;
      }
      expect(seen[0]).toBe('taskCreated');
      expect(seen.at(-1)).toBe('result');
      expect(final?.content).toEqual([{ type: 'text', text: 'Computed v1 after 0.2s' }]);
      // The status change also reached the session as notifications/tasks/status (its GET stream).
      await vi.waitFor(
        () => {
          expect(statuses, 'the completed status notification').toContainEqual(
            expect.objectContaining({ status: 'completed', ttl: 60_000 }),
          );
        },
        { timeout: 10_000, interval: 20 },
      );

      const { tasks } = await client.experimental.tasks.listTasks();
      expect(tasks.length).toBeGreaterThan(0);
      const long = (await client.request(
        { method: 'tools/call', params: { name: 'slow_compute', arguments: { seconds: 60 }, task: {} } },
        // The v1 CreateTaskResult schema is not exported under a stable name: read it loosely.
        CallToolResultSchema.passthrough().partial(),
      )) as unknown as { task: { taskId: string } };
      const cancelled = await client.experimental.tasks.cancelTask(long.task.taskId);
      expect(cancelled.status).toBe('cancelled');
      expect((await client.experimental.tasks.getTask(long.task.taskId)).status).toBe('cancelled');
      await expect(client.experimental.tasks.cancelTask(long.task.taskId)).rejects.toThrow(/terminal/);
      await expect(client.experimental.tasks.getTask('no-such-task')).rejects.toThrow(/Task not found/);
    } finally {
      await client.close();
    }
  });

  it('a task that needs input: the elicitation arrives on the tasks/result stream and the task completes', async () => {
    const client = new ClientV1(
      { name: 'v1-tasks-input', version: '1.0.0' },
      { capabilities: { elicitation: {} } },
    );
    const asked: Json[] = [];
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      asked.push(request.params as Json);
      return { action: 'accept', content: { confirm: true } };
    });
    await client.connect(new HttpV1(new URL(server.url)));
    try {
      await client.listTools();
      let final: Json | undefined;
      for await (const message of client.experimental.tasks.callToolStream({
        name: 'confirm_delete',
        arguments: { filename: 'v1.txt' },
      })) {
        if (message.type === 'result') final = message.result as Json;
        if (message.type === 'error') throw message.error;
      }
      expect(final?.content).toEqual([{ type: 'text', text: 'Deleted v1.txt' }]);
      expect(asked).toHaveLength(1);
      expect(asked[0]).toMatchObject({
        message: 'Delete v1.txt?',
        _meta: { 'io.modelcontextprotocol/related-task': { taskId: expect.any(String) } },
      });
    } finally {
      await client.close();
    }
  });
});

describe('SDK v2 client: the 2026-07-28 tasks extension with explicit requests', () => {
  it('discovers the extension, creates a task, answers its input with tasks/update and reads the result', async () => {
    const client = new ClientV2(
      { name: 'v2-tasks', version: '1.0.0' },
      {
        capabilities: { elicitation: {}, extensions: TASKS },
        versionNegotiation: { mode: { pin: '2026-07-28' } },
      },
    );
    await client.connect(new HttpV2(new URL(server.url)));
    // The v2 client rejects resultType "task" (it has no task runtime), so the creating call goes
    // through its transport as an explicit JSON-RPC request; tasks/* go through client.request.
    const raw = new HttpV2(new URL(server.url));
    const answers = new Map<string | number, Json>();
    raw.onmessage = (message: JSONRPCMessage) => {
      const m = message as Json;
      if (m.id !== undefined) answers.set(m.id as string | number, m);
    };
    await raw.start();
    raw.setProtocolVersion('2026-07-28');
    try {
      expect(client.getProtocolEra()).toBe('modern');
      expect(client.getServerCapabilities()?.extensions).toMatchObject(TASKS);
      await raw.send({
        jsonrpc: '2.0',
        id: 'create-1',
        method: 'tools/call',
        params: {
          name: 'confirm_delete',
          arguments: { filename: 'v2.txt' },
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientCapabilities': { elicitation: {}, extensions: TASKS },
          },
        },
      } as JSONRPCMessage);
      const created = answers.get('create-1')?.result as Json;
      expect(created).toMatchObject({ resultType: 'task', status: 'working' });
      const taskId = created.taskId as string;

      const get = () => client.request({ method: 'tasks/get', params: { taskId } }, anyResult);
      let task = await get();
      await vi.waitFor(
        async () => {
          task = await get();
          expect(task.status, 'the task to ask for input').toBe('input_required');
        },
        { timeout: 10_000, interval: 20 },
      );
      expect(task).toMatchObject({
        taskId,
        status: 'input_required',
        inputRequests: { confirm: expect.any(Object) },
      });
      const ack = await client.request(
        {
          method: 'tasks/update',
          params: { taskId, inputResponses: { confirm: { action: 'accept', content: { confirm: true } } } },
        },
        anyResult,
      );
      expect(ack).not.toHaveProperty('taskId');
      await vi.waitFor(
        async () => {
          task = await get();
          expect(task.status, 'the task to complete').toBe('completed');
        },
        { timeout: 10_000, interval: 20 },
      );
      expect(task.result).toMatchObject({ content: [{ type: 'text', text: 'Deleted v2.txt' }] });
      await expect(
        client.request({ method: 'tasks/get', params: { taskId: 'no-such-task' } }, anyResult),
      ).rejects.toThrow(/Task not found/);
      // Cancelling a finished task is the same empty acknowledgement (the extension's idempotent cancel).
      expect(
        await client.request({ method: 'tasks/cancel', params: { taskId } }, anyResult),
      ).not.toHaveProperty('status');
    } finally {
      await raw.close();
      await client.close();
    }
  });
});

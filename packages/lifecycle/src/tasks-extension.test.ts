/** Task protocol rules: extension gating, wire field names per era, capabilities per era. */
import { describe, expect, it } from 'vitest';
import { lifecycleResponse } from './lifecycle-response.js';
import {
  capabilitiesForEra,
  createTaskResult,
  declaresTasksExtension,
  missingTasksExtension,
  taskWire,
} from './tasks-extension.js';

const INFO = {
  taskId: 't1',
  status: 'working',
  createdAt: 0,
  lastUpdatedAt: 1_000,
  ttlMs: 60_000,
  pollIntervalMs: 500,
} as const;
const CAPS = {
  tools: {},
  tasks: { list: {}, cancel: {} },
  extensions: { 'io.modelcontextprotocol/tasks': {}, 'dev.agentd/other': {} },
};

describe('tasks extension rules', () => {
  it('reads the extension from capabilities and names it in -32021', () => {
    expect(declaresTasksExtension({ extensions: { 'io.modelcontextprotocol/tasks': {} } })).toBe(true);
    expect(declaresTasksExtension({ extensions: { 'io.modelcontextprotocol/tasks': true } })).toBe(false);
    expect(declaresTasksExtension({})).toBe(false);
    expect(missingTasksExtension().toJSON()).toEqual({
      code: -32021,
      message: 'Missing required client capability',
      data: { requiredCapabilities: { extensions: { 'io.modelcontextprotocol/tasks': {} } } },
    });
  });

  it('spells the task per era and makes the create result flat (modern) or wrapped (legacy)', () => {
    expect(taskWire(INFO, 'modern')).toEqual({
      taskId: 't1',
      status: 'working',
      createdAt: '1970-01-01T00:00:00.000Z',
      lastUpdatedAt: '1970-01-01T00:00:01.000Z',
      ttlMs: 60_000,
      pollIntervalMs: 500,
    });
    expect(taskWire(INFO, 'legacy')).toMatchObject({ ttl: 60_000, pollInterval: 500 });
    expect(createTaskResult(INFO, 'modern')).toMatchObject({ resultType: 'task', taskId: 't1' });
    expect(createTaskResult(INFO, 'legacy')).toEqual({ task: taskWire(INFO, 'legacy') });
  });

  it('shows each era its own task capability', () => {
    expect(capabilitiesForEra(CAPS, 'modern', '2026-07-28')).toEqual({
      tools: {},
      extensions: CAPS.extensions,
    });
    expect(capabilitiesForEra(CAPS, 'legacy', '2025-11-25')).toEqual({
      tools: {},
      tasks: CAPS.tasks,
      extensions: { 'dev.agentd/other': {} },
    });
    expect(
      capabilitiesForEra(
        { tools: {}, tasks: {}, extensions: { 'io.modelcontextprotocol/tasks': {} } },
        'legacy',
        '2025-06-18',
      ),
    ).toEqual({ tools: {} });
    const init = lifecycleResponse(
      { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18' } },
      { name: 's', version: '1' },
      CAPS,
    );
    expect(init).toMatchObject({
      result: { capabilities: { tools: {}, extensions: { 'dev.agentd/other': {} } } },
    });
    expect(JSON.stringify(init)).not.toContain('tasks');
  });
});

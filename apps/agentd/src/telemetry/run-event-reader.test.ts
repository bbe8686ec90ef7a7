import { describe, expect, it } from 'vitest';
import { readTelemetryEvent, usageDelta } from './run-event-reader.js';

describe('readTelemetryEvent', () => {
  it('reads tool calls by name and kind only, bounding the name and mapping unknown kinds to other', () => {
    const event = readTelemetryEvent({
      type: 'tool_call',
      toolCall: {
        id: 'c1',
        title: 'Write /secret',
        kind: 'teleport',
        status: 'in_progress',
        name: 'x'.repeat(500),
        input: 'secret',
      },
    });
    expect(event).toEqual({
      type: 'tool_call',
      toolCall: { id: 'c1', name: 'x'.repeat(64), kind: 'other', status: 'in_progress' },
    });
    expect(
      readTelemetryEvent({ type: 'tool_call', toolCall: { id: 'c2', kind: 'read', status: 'completed' } }),
    ).toEqual({
      type: 'tool_call',
      toolCall: { id: 'c2', name: 'read', kind: 'read', status: 'completed' },
    });
  });

  it('drops what a protocol agent sent in the wrong shape', () => {
    expect(
      readTelemetryEvent({ type: 'tool_call', toolCall: { id: 1, status: 'completed' } }),
    ).toBeUndefined();
    expect(
      readTelemetryEvent({ type: 'tool_call', toolCall: { id: 'a', status: 'exploded' } }),
    ).toBeUndefined();
    expect(
      readTelemetryEvent({ type: 'usage', usage: { inputTokens: -1, outputTokens: 2 } }),
    ).toBeUndefined();
    expect(
      readTelemetryEvent({ type: 'usage', usage: { inputTokens: Number.NaN, outputTokens: 2 } }),
    ).toBeUndefined();
    expect(readTelemetryEvent({ type: 'usage', usage: 'lots' })).toBeUndefined();
    expect(
      readTelemetryEvent({
        type: 'permission_decision',
        decision: { outcome: 'selected', kind: 'yolo', by: 'policy' },
      }),
    ).toBeUndefined();
    expect(
      readTelemetryEvent({ type: 'permission_decision', decision: { outcome: 'cancelled', by: 'me' } }),
    ).toBeUndefined();
    expect(readTelemetryEvent({ type: 'progress', progress: 1 })).toBeUndefined();
  });

  it('reads usage totals with missing cache counts as zero', () => {
    expect(
      readTelemetryEvent({ type: 'usage', usage: { inputTokens: 3, outputTokens: 4, costUsd: 0.5 } }),
    ).toEqual({
      type: 'usage',
      usage: { inputTokens: 3, outputTokens: 4, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0.5 },
    });
  });
});

describe('usageDelta', () => {
  it('is what the totals added, never negative', () => {
    const before = {
      inputTokens: 10,
      outputTokens: 5,
      cacheReadTokens: 2,
      cacheWriteTokens: 0,
      costUsd: 0.25,
    };
    const after = { inputTokens: 15, outputTokens: 5, cacheReadTokens: 1, cacheWriteTokens: 3, costUsd: 0.5 };
    expect(usageDelta(before, after)).toEqual({
      inputTokens: 5,
      outputTokens: 0,
      cacheReadTokens: 0,
      cacheWriteTokens: 3,
      costUsd: 0.25,
    });
    expect(usageDelta(undefined, after)).toEqual({ ...after });
  });
});

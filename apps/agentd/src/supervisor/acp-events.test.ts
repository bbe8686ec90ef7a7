/** ACP session updates onto run events: merging partial tool-call updates, bounds, untrusted shapes. */
import { describe, expect, it } from 'vitest';
import { mapSessionUpdate, permissionRequest, ToolCalls } from './acp-events.js';

describe('mapSessionUpdate', () => {
  it('merges tool call updates into one current view', () => {
    const tools = new ToolCalls();
    mapSessionUpdate(
      {
        sessionUpdate: 'tool_call',
        toolCallId: 't',
        title: 'Run ls',
        kind: 'execute',
        rawInput: { command: 'ls' },
      },
      tools,
    );
    const { events } = mapSessionUpdate(
      {
        sessionUpdate: 'tool_call_update',
        toolCallId: 't',
        status: 'completed',
        content: [{ type: 'content', content: { type: 'text', text: 'a\nb' } }],
      },
      tools,
    );
    expect(events).toEqual([
      {
        type: 'tool_call',
        toolCall: {
          id: 't',
          title: 'Run ls',
          kind: 'execute',
          status: 'completed',
          input: '{"command":"ls"}',
          output: 'a\nb',
        },
      },
    ]);
  });

  it('bounds summaries and diffs, and ignores what it does not know', () => {
    const tools = new ToolCalls();
    const big = 'x'.repeat(100_000);
    const { events } = mapSessionUpdate(
      {
        sessionUpdate: 'tool_call',
        toolCallId: 't',
        kind: 'launch-missiles',
        status: 'weird',
        rawInput: big,
        content: [{ type: 'diff', path: '/w/a', newText: big }, { type: 'diff' }, 'junk'],
      },
      tools,
    );
    const view = (events[0] as { toolCall: { kind: string; status: string; input: string; title: string } })
      .toolCall;
    expect(view).toMatchObject({ kind: 'other', status: 'pending', title: 't' });
    expect(view.input.length).toBeLessThan(2100);
    expect(events).toHaveLength(2);
    expect((events[1] as { newText: string }).newText.length).toBeLessThan(17_000);
    expect(mapSessionUpdate({ sessionUpdate: 'something_new' }, tools)).toEqual({ events: [] });
    expect(mapSessionUpdate('garbage', tools)).toEqual({ events: [] });
    expect(mapSessionUpdate({ sessionUpdate: 'tool_call' }, tools)).toEqual({ events: [] });
  });

  it('maps chunks, thoughts, plans and a USD cost', () => {
    const tools = new ToolCalls();
    const chunk = (sessionUpdate: string) =>
      mapSessionUpdate({ sessionUpdate, content: { type: 'text', text: 'hi' } }, tools);
    expect(chunk('agent_message_chunk')).toEqual({ events: [{ type: 'message', text: 'hi' }], text: 'hi' });
    expect(chunk('agent_thought_chunk')).toEqual({ events: [{ type: 'thought', text: 'hi' }] });
    expect(chunk('user_message_chunk')).toEqual({ events: [] });
    expect(
      mapSessionUpdate(
        { sessionUpdate: 'plan', entries: [{ content: 'a', status: 'done?', priority: 'urgent' }, 7] },
        tools,
      ),
    ).toEqual({ events: [{ type: 'plan', entries: [{ content: 'a', status: 'pending' }] }] });
    expect(
      mapSessionUpdate(
        { sessionUpdate: 'usage_update', used: 1, size: 2, cost: { amount: 1.5, currency: 'USD' } },
        tools,
      ),
    ).toEqual({
      events: [],
      costUsd: 1.5,
    });
    expect(
      mapSessionUpdate({ sessionUpdate: 'usage_update', cost: { amount: 1.5, currency: 'EUR' } }, tools),
    ).toEqual({ events: [] });
  });
});

describe('permissionRequest', () => {
  it('keeps the options with a known kind, and the tool call as known', () => {
    const tools = new ToolCalls();
    mapSessionUpdate({ sessionUpdate: 'tool_call', toolCallId: 't', title: 'Write a', kind: 'edit' }, tools);
    const request = permissionRequest(
      'perm-1',
      {
        toolCall: { toolCallId: 't', status: 'pending' },
        options: [
          { optionId: 'a', name: 'Allow', kind: 'allow_once' },
          { optionId: 'b', kind: 'allow_forever' },
          { optionId: 'c', kind: 'reject_always' },
          null,
        ],
      },
      tools,
    );
    expect(request).toEqual({
      requestId: 'perm-1',
      toolCall: { id: 't', title: 'Write a', kind: 'edit', status: 'pending' },
      options: [
        { optionId: 'a', name: 'Allow', kind: 'allow_once' },
        { optionId: 'c', name: 'c', kind: 'reject_always' },
      ],
    });
    expect(permissionRequest('perm-2', 'nope', tools)).toMatchObject({
      options: [],
      toolCall: { id: 'unknown' },
    });
  });
});

import { describe, expect, it } from 'vitest';
import {
  assistantBlockEvents,
  diffOf,
  finishedToolCall,
  streamChunkEvent,
  toolCallView,
  toolKind,
  usageOf,
} from './claude-events.js';
import { permissionOptions, permissionResponse, turnResult } from './claude-protocol.js';

describe("Claude Code's stream-json as run events", () => {
  it('maps tool names onto kinds', () => {
    expect(
      ['Read', 'Write', 'Edit', 'MultiEdit', 'Bash', 'Grep', 'Glob', 'WebFetch', 'mcp__x__y'].map(toolKind),
    ).toEqual(['read', 'edit', 'edit', 'edit', 'execute', 'search', 'search', 'fetch', 'other']);
  });

  it('titles a tool call by its main input, bounded, with the files it touches', () => {
    expect(toolCallView('t1', 'Bash', { command: 'git status\n  --short', description: 'x' })).toEqual({
      id: 't1',
      name: 'Bash',
      kind: 'execute',
      status: 'pending',
      title: 'Bash: git status --short',
      input: 'git status\n  --short',
    });
    const write = toolCallView('t2', 'Write', { file_path: '/w/a.txt', content: 'x'.repeat(10_000) });
    expect(write).toMatchObject({ title: 'Write /w/a.txt', input: '/w/a.txt', locations: ['/w/a.txt'] });
    const odd = toolCallView('t3', 'Custom', { blob: 'y'.repeat(10_000) });
    expect(odd.title).toBe('Custom');
    expect(odd.input?.length).toBe(501);
  });

  it('turns text, thinking, tool use and TodoWrite into message, thought, tool_call and plan', () => {
    expect(assistantBlockEvents({ type: 'text', text: 'hi' })).toEqual([{ type: 'message', text: 'hi' }]);
    expect(assistantBlockEvents({ type: 'thinking', thinking: 'hmm' })).toEqual([
      { type: 'thought', text: 'hmm' },
    ]);
    const todo = assistantBlockEvents({
      type: 'tool_use',
      id: 't4',
      name: 'TodoWrite',
      input: {
        todos: [
          { content: 'read', status: 'completed', activeForm: 'reading' },
          { content: 'write', status: 'in_progress' },
          { content: 'test', status: 'whatever' },
        ],
      },
    });
    expect(todo[0]).toMatchObject({ type: 'tool_call', toolCall: { kind: 'think', name: 'TodoWrite' } });
    expect(todo[1]).toEqual({
      type: 'plan',
      entries: [
        { content: 'read', status: 'completed' },
        { content: 'write', status: 'in_progress' },
        { content: 'test', status: 'pending' },
      ],
    });
    expect(assistantBlockEvents({ type: 'tool_use', name: 'Read' })).toEqual([]);
  });

  it('turns partial-message deltas into message and thought chunks, and ignores the rest', () => {
    const delta = (d: unknown) => streamChunkEvent({ type: 'content_block_delta', index: 0, delta: d });
    expect(delta({ type: 'text_delta', text: 'He' })).toEqual({ type: 'message', text: 'He' });
    expect(delta({ type: 'thinking_delta', thinking: 'so' })).toEqual({ type: 'thought', text: 'so' });
    expect(delta({ type: 'input_json_delta', partial_json: '{' })).toBeUndefined();
    expect(streamChunkEvent({ type: 'message_stop' })).toBeUndefined();
    expect(streamChunkEvent('garbage')).toBeUndefined();
  });

  it('finishes a tool call with a bounded output, and diffs edits', () => {
    const call = toolCallView('t5', 'Read', { file_path: '/w/a' });
    expect(
      finishedToolCall(call, { content: [{ type: 'text', text: 'abc' }, { type: 'image' }] }),
    ).toMatchObject({
      status: 'completed',
      output: 'abc\n[image]',
    });
    expect(finishedToolCall(call, { is_error: true, content: 'z'.repeat(5000) }).output?.length).toBe(2001);
    expect(diffOf('Edit', { file_path: '/w/a', old_string: 'a', new_string: 'b' })).toEqual({
      type: 'diff',
      path: '/w/a',
      oldText: 'a',
      newText: 'b',
    });
    expect(
      diffOf('MultiEdit', { file_path: '/w/a', edits: [{ old_string: 'a', new_string: 'b' }] }),
    ).toMatchObject({
      newText: 'b',
    });
    expect(diffOf('Read', { file_path: '/w/a' })).toBeUndefined();
  });

  it('reads usage, permission options and results defensively', () => {
    expect(
      usageOf({
        input_tokens: 3,
        output_tokens: -1,
        cache_read_input_tokens: 2,
        cache_creation_input_tokens: 'x',
      }),
    ).toEqual({
      inputTokens: 3,
      outputTokens: 0,
      cacheReadTokens: 2,
      cacheWriteTokens: 0,
    });
    expect(permissionOptions({}).map((o) => o.optionId)).toEqual(['allow', 'deny']);
    const suggestions = [{ type: 'setMode', mode: 'acceptEdits', destination: 'session' }];
    const request = { input: { file_path: '/w/a' }, permission_suggestions: suggestions };
    expect(
      permissionResponse(
        { outcome: 'selected', optionId: 'allow_always', kind: 'allow_always', by: 'caller' },
        request,
      ),
    ).toEqual({ behavior: 'allow', updatedInput: { file_path: '/w/a' }, updatedPermissions: suggestions });
    expect(permissionResponse({ outcome: 'cancelled', by: 'cancelled' }, request)).toMatchObject({
      behavior: 'deny',
    });
    expect(turnResult({ subtype: 'error_max_turns', is_error: true }, 2)).toMatchObject({
      turn: 2,
      isError: true,
      text: 'claude ended the turn with error_max_turns',
      stopReason: 'error_max_turns',
    });
  });
});

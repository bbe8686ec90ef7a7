import { describe, expect, it } from 'vitest';
import { RunEventText } from './run-event-text.js';

const lines = (view: RunEventText, event: Record<string, unknown>, handle = 'sa_h') =>
  view.render(event as never, handle).map((r) => `${r.kind}:${r.text}`);

describe('run events as terminal lines', () => {
  it('shows tool calls once per status, permission prompts with the approve command, plan as a checklist, usage at turn end', () => {
    const view = new RunEventText(false, false);
    const call = { id: 'c1', title: 'Write src/a.ts', kind: 'edit', status: 'pending' };
    expect(lines(view, { type: 'tool_call', toolCall: call })).toEqual([
      'line:▸ tool Write src/a.ts (edit) … pending',
    ]);
    expect(lines(view, { type: 'tool_call', toolCall: call })).toEqual([]);
    expect(
      lines(view, { type: 'tool_call', toolCall: { ...call, status: 'completed', output: 'ok' } }),
    ).toEqual(['line:▸ tool Write src/a.ts (edit) … completed: ok']);
    const request = {
      requestId: 'r1',
      toolCall: { ...call, locations: ['src/a.ts'] },
      options: [
        { optionId: 'allow', name: 'Allow once', kind: 'allow_once' },
        { optionId: 'reject', name: 'Reject', kind: 'reject_once' },
      ],
    };
    const prompt = lines(view, { type: 'permission_request', request });
    expect(prompt[0]).toBe('line:? permission: Write src/a.ts — agentd approve sa_h r1');
    expect(prompt[1]).toContain('Allow once [allow]');
    expect(
      lines(view, {
        type: 'permission_decision',
        requestId: 'r1',
        decision: { outcome: 'selected', optionId: 'allow', kind: 'allow_once', by: 'operator' },
      }),
    ).toEqual(['line:✓ permission r1: allow_once (by operator)']);
    expect(
      lines(view, {
        type: 'plan',
        entries: [
          { content: 'read', status: 'completed' },
          { content: 'write', status: 'in_progress' },
          { content: 'test', status: 'pending' },
        ],
      }),
    ).toEqual(['line:plan:', 'line:  [x] read', 'line:  [~] write', 'line:  [ ] test']);
    expect(lines(view, { type: 'usage', usage: { inputTokens: 10, outputTokens: 2, costUsd: 0.5 } })).toEqual(
      [],
    );
    expect(lines(view, { type: 'turn_end', turn: 1, stopReason: 'end_turn', text: '' })).toEqual([
      'line:· turn 1 ended (end_turn) · tokens in 10 out 2 · $0.5000',
    ]);
    expect(lines(view, { type: 'message', text: 'hello\n' })).toEqual(['chunk:hello\n']);
  });

  it('makes every agent-provided string inert', () => {
    const view = new RunEventText(false, false);
    const evil = 'x\u001b]52;c;Zm9v\u0007\u202e';
    const shown = [
      ...lines(view, {
        type: 'tool_call',
        toolCall: { id: 'c', title: evil, kind: 'edit', status: 'failed', output: evil },
      }),
      ...lines(view, { type: 'message', text: evil }),
      ...lines(view, { type: 'plan', entries: [{ content: evil, status: 'pending' }] }),
      ...lines(view, {
        type: 'permission_request',
        request: { requestId: evil, toolCall: { title: evil }, options: [{ optionId: evil, name: evil }] },
      }),
    ].join('\n');
    for (const raw of ['\u001b', '\u0007', '\u202e']) expect(shown).not.toContain(raw);
    expect(shown).toContain('^[]52;c;Zm9v^G<U+202E>');
  });
});

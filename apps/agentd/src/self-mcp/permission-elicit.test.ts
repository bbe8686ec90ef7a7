import { describe, expect, it } from 'vitest';
import type { PermissionRequest } from '../supervisor/run-event.js';
import { chosenOption, permissionMessage, permissionSchema } from './permission-elicit.js';

const request: PermissionRequest = {
  requestId: 'toolu_1',
  toolCall: {
    id: 'toolu_1',
    title: 'Write src/a.ts',
    kind: 'edit',
    status: 'pending',
    input: 'x'.repeat(5000),
    locations: Array.from({ length: 12 }, (_, i) => `src/f${i}.ts`),
  },
  options: [
    { optionId: 'allow', name: 'Allow once', kind: 'allow_once' },
    { optionId: 'always', name: 'Allow always', kind: 'allow_always' },
    { optionId: 'deny', name: 'Reject', kind: 'reject_once' },
  ],
};

describe('a permission prompt as an elicitation form', () => {
  it('names the run and the tool call, bounded', () => {
    const message = permissionMessage(request, 'run_1');
    expect(message).toContain('Run run_1 asks permission: Write src/a.ts (edit)');
    expect(message).toContain('Files: src/f0.ts');
    expect(message).toContain('(+2 more)');
    expect(message.length).toBeLessThan(1500);
  });

  it('offers the agent’s options as a titled single choice (MCP primitive schema)', () => {
    expect(permissionSchema(request.options)).toEqual({
      type: 'object',
      properties: {
        decision: {
          type: 'string',
          title: 'Decision',
          description: expect.any(String),
          oneOf: [
            { const: 'allow', title: 'Allow once' },
            { const: 'always', title: 'Allow always' },
            { const: 'deny', title: 'Reject' },
          ],
        },
      },
      required: ['decision'],
    });
  });

  it('accept picks an offered option; decline and cancel reject; anything else decides nothing', () => {
    expect(chosenOption({ action: 'accept', content: { decision: 'always' } }, request)).toBe('always');
    expect(chosenOption({ action: 'decline' }, request)).toBe('deny');
    expect(chosenOption({ action: 'cancel' }, request)).toBe('deny');
    expect(chosenOption({ action: 'accept', content: { decision: 'nope' } }, request)).toBeUndefined();
    expect(chosenOption({ action: 'accept' }, request)).toBeUndefined();
  });
});

import { describe, expect, it } from 'vitest';
import { parseArgs, UsageError } from './parse-args.js';

describe('agentd approve and close', () => {
  it('parse their arguments', () => {
    expect(parseArgs(['approve', 'sa_x'])).toMatchObject({
      kind: 'client',
      command: { kind: 'approve', handle: 'sa_x', deny: false, always: false },
    });
    expect(parseArgs(['approve', 'sa_x', 'req-1', '--deny', '--always'])).toMatchObject({
      command: { kind: 'approve', handle: 'sa_x', requestId: 'req-1', deny: true, always: true },
    });
    expect(parseArgs(['close', 'sa_x', '--json'])).toMatchObject({
      command: { kind: 'close', handle: 'sa_x', json: true },
    });
    expect(parseArgs(['spawn', '--events', 'do it'])).toMatchObject({
      command: { kind: 'spawn', events: true },
    });
    expect(() => parseArgs(['approve'])).toThrow(UsageError);
    expect(() => parseArgs(['close', 'a', 'b'])).toThrow(UsageError);
    expect(parseArgs(['close', '--help'])).toMatchObject({
      kind: 'help',
      text: expect.stringContaining('agentd close RUN'),
    });
  });
});

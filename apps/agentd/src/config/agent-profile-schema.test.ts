import { describe, expect, it } from 'vitest';
import { validateLayer } from './validate-config.js';

const issues = (agents: Record<string, unknown>) =>
  validateLayer({ agents }, 'f').map(({ path, message }) => `${path}: ${message}`);

describe('agent profile schema', () => {
  it('accepts claude (command optional) and acp profiles with their fields', () => {
    expect(
      issues({
        claude: {
          mode: 'claude',
          permissions: {
            allow: ['Read', 'Bash(git *)'],
            deny: ['WebFetch'],
            default: 'ask',
            timeoutMs: 60_000,
          },
          budget: { maxCostUsd: 0.5, maxTokens: 200_000 },
          idleTimeoutMs: 0,
        },
        gemini: {
          mode: 'acp',
          command: 'gemini',
          args: ['--experimental-acp'],
          allowFileSystem: true,
          allowTerminal: false,
        },
      }),
    ).toEqual([]);
  });

  it('refuses bad values with the path that is wrong', () => {
    expect(
      issues({
        a: { mode: 'acp' },
        b: { mode: 'claude', permissions: { allow: ['no good('], default: 'maybe', extra: 1 } },
        c: { mode: 'claude', budget: { maxCostUsd: 0, maxTokens: 1.5 }, idleTimeoutMs: -1 },
        d: { mode: 'robot', command: 'x' },
      }),
    ).toEqual([
      "/agents/a: must have required property 'command'",
      "/agents/b/permissions/extra: unknown key 'extra'",
      '/agents/b/permissions/allow/0: must match pattern "^[^()\\s]+(\\(.*\\))?$"',
      '/agents/b/permissions/default: must be one of "ask", "deny", "allow"',
      '/agents/c/budget/maxCostUsd: must be > 0',
      '/agents/c/budget/maxTokens: must be integer',
      '/agents/c/idleTimeoutMs: must be >= 0',
      '/agents/d/mode: must be one of "protocol", "plain", "claude", "acp"',
    ]);
  });
});

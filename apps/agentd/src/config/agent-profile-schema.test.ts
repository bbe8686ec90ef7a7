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

  it('accepts a workspace block and refuses its bad values by path', () => {
    expect(
      issues({
        w: {
          mode: 'plain',
          command: 'x',
          workspace: { mode: 'worktree', repo: '.', keep: 'always', maxLive: 4 },
        },
        c: { mode: 'plain', command: 'x', workspace: { mode: 'copy' } },
        i: { mode: 'plain', command: 'x', workspace: {} },
      }),
    ).toEqual([]);
    expect(
      issues({
        a: { mode: 'plain', command: 'x', workspace: { mode: 'clone', keep: 'sometimes' } },
        b: { mode: 'plain', command: 'x', workspace: { repo: '', maxLive: 0, branch: 'main' } },
        c: { mode: 'plain', command: 'x', workspace: 'worktree' },
      }),
    ).toEqual([
      '/agents/a/workspace/mode: must be one of "worktree", "copy", "in-place"',
      '/agents/a/workspace/keep: must be one of "changed", "always", "never"',
      "/agents/b/workspace/branch: unknown key 'branch'",
      '/agents/b/workspace/repo: must NOT have fewer than 1 characters',
      '/agents/b/workspace/maxLive: must be >= 1',
      '/agents/c/workspace: must be object',
    ]);
  });
});

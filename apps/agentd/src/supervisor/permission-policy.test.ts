import { describe, expect, it } from 'vitest';
import { checkPermissionPolicy, evaluatePolicy, matches, patternProblem } from './permission-policy.js';
import type { ToolCallView } from './run-event.js';

const call = (
  name: string | undefined,
  kind: ToolCallView['kind'],
  input?: string,
  locations?: string[],
): ToolCallView => ({
  id: 't1',
  title: name ?? kind,
  kind,
  status: 'pending',
  ...(name === undefined ? {} : { name }),
  ...(input === undefined ? {} : { input }),
  ...(locations === undefined ? {} : { locations }),
});

describe('permission patterns', () => {
  it('match a tool name, a kind, an input glob and everything', () => {
    const bash = call('Bash', 'execute', 'git status --short');
    expect(matches('Bash', bash)).toBe(true);
    expect(matches('bash', bash)).toBe(false);
    expect(matches('execute', bash)).toBe(true);
    expect(matches('Bash(git *)', bash)).toBe(true);
    expect(matches('Bash(git push*)', bash)).toBe(false);
    expect(matches('Bash(rm *)', bash)).toBe(false);
    expect(matches('*', bash)).toBe(true);
    expect(matches('*', call(undefined, 'other'))).toBe(true);
    expect(matches('Read', call(undefined, 'read'))).toBe(false);
    expect(matches('mcp__github__*', call('mcp__github__create_issue', 'other'))).toBe(true);
    expect(matches('mcp__github__*', call('mcp__gitlab__x', 'other'))).toBe(false);
  });

  it('match an input glob against the files a call touches', () => {
    const write = call('Write', 'edit', '/repo/src/a.ts', ['/repo/src/a.ts']);
    expect(matches('edit(/repo/src/*)', write)).toBe(true);
    expect(matches('Write(/repo/docs/*)', write)).toBe(false);
    expect(matches('Write(*.ts)', call('Write', 'edit', undefined, ['/x/y.ts']))).toBe(true);
  });

  it('treat regex characters in a glob literally', () => {
    expect(matches('Bash(ls a.b)', call('Bash', 'execute', 'ls a.b'))).toBe(true);
    expect(matches('Bash(ls a.b)', call('Bash', 'execute', 'ls axb'))).toBe(false);
    expect(matches('Bash(echo (x))', call('Bash', 'execute', 'echo (x)'))).toBe(true);
  });

  it('refuse malformed patterns with a clear problem', () => {
    expect(patternProblem('Bash(git *)')).toBeUndefined();
    expect(patternProblem('')).toBe('must be a non-empty string');
    expect(patternProblem('Bash(git')).toMatch(/is not a pattern/);
    expect(patternProblem('two words')).toMatch(/is not a pattern/);
    expect(patternProblem(3)).toBe('must be a non-empty string');
  });
});

/** The field a refused policy names. */
function fieldOf(checked: ReturnType<typeof checkPermissionPolicy>): string | undefined {
  return Array.isArray(checked) ? checked[0] : undefined;
}

describe('permission policy', () => {
  const bash = call('Bash', 'execute', 'git push');
  it('lets deny win over allow, then allow, then the default (ask)', () => {
    expect(evaluatePolicy({ allow: ['Bash'], deny: ['Bash(git push*)'] }, bash)).toBe('deny');
    expect(evaluatePolicy({ allow: ['Bash'] }, bash)).toBe('allow');
    expect(evaluatePolicy({ allow: ['Read'] }, bash)).toBe('ask');
    expect(evaluatePolicy({ allow: ['Read'], default: 'deny' }, bash)).toBe('deny');
    expect(evaluatePolicy({ default: 'allow', deny: ['execute'] }, bash)).toBe('deny');
    expect(evaluatePolicy(undefined, bash)).toBe('ask');
  });

  it('is checked with the field that is wrong named', () => {
    expect(checkPermissionPolicy({ allow: ['Read'], default: 'deny', timeoutMs: 5 })).toEqual({
      allow: ['Read'],
      default: 'deny',
      timeoutMs: 5,
    });
    expect(checkPermissionPolicy([])).toEqual(['', 'must be an object']);
    expect(checkPermissionPolicy({ allow: 'Read' })).toEqual(['.allow', 'must be an array of patterns']);
    expect(fieldOf(checkPermissionPolicy({ deny: ['ok', 'x('] }))).toBe('.deny[1]');
    expect(checkPermissionPolicy({ default: 'maybe' })).toEqual([
      '.default',
      'must be "ask", "deny" or "allow"',
    ]);
    expect(fieldOf(checkPermissionPolicy({ timeoutMs: 0 }))).toBe('.timeoutMs');
    expect(checkPermissionPolicy({ alow: [] })).toEqual([
      '.alow',
      'unknown key (allow, deny, default, timeoutMs)',
    ]);
  });
});

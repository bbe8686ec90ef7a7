import { LocalError } from '@agentd/rpc-frame';
import { describe, expect, it } from 'vitest';
import { checkConfig } from './config-check.js';
import type { AgentProfile } from './types.js';

const limits = {
  maxConcurrentRuns: 1,
  maxWarmSessions: 1,
  maxTrackedHandles: 4,
  maxOutputBytes: 1024,
  defaultTimeoutMs: 1000,
};
const check = (profile: Partial<AgentProfile>) =>
  checkConfig({ profiles: [{ name: 'a', ...profile } as AgentProfile], defaultAgent: 'a', limits });

function problem(profile: Partial<AgentProfile>): string {
  try {
    check(profile);
  } catch (error) {
    expect(error).toBeInstanceOf(LocalError);
    return (error as Error).message;
  }
  throw new Error('expected a refusal');
}

describe('profile checks of claude and acp agents', () => {
  it("fills in claude's command and keeps a frozen copy of the policy and budget", () => {
    const profile = check({
      mode: 'claude',
      permissions: { allow: ['Read'] },
      budget: { maxTokens: 10 },
    }).profiles.get('a');
    expect(profile).toMatchObject({
      command: 'claude',
      permissions: { allow: ['Read'] },
      budget: { maxTokens: 10 },
    });
    expect(Object.isFrozen(profile?.permissions)).toBe(true);
    expect(
      check({ mode: 'acp', command: 'gemini', allowTerminal: false }).profiles.get('a')?.allowTerminal,
    ).toBe(false);
  });

  it('refuses bad fields, naming them', () => {
    expect(problem({ mode: 'acp' })).toMatch(/profiles\[0\]\.command: must be a non-empty string/);
    expect(problem({ mode: 'claude', permissions: { deny: ['x('] } })).toMatch(
      /profiles\[0\]\.permissions\.deny\[0\]: "x\(" is not a pattern/,
    );
    expect(problem({ mode: 'claude', budget: { maxCostUsd: -2 } })).toMatch(
      /profiles\[0\]\.budget\.maxCostUsd: must be a positive number/,
    );
    expect(problem({ mode: 'claude', idleTimeoutMs: 1.5 })).toMatch(/profiles\[0\]\.idleTimeoutMs/);
    expect(problem({ mode: 'plain', command: 'cat', allowFileSystem: true })).toMatch(
      /allowFileSystem: applies to acp agents only/,
    );
    expect(problem({ mode: 'robot' as 'acp', command: 'x' })).toMatch(
      /must be "protocol", "plain", "claude" or "acp"/,
    );
  });
});

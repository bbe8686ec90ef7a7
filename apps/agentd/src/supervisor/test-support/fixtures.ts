/** Test fixtures for the supervisor: profiles over real commands, a supervisor factory, polling helpers. */
import { existsSync, readFileSync } from 'node:fs';
import { exampleAgentPath, exampleAgentProfile } from '../example-agent-profile.js';
import { Supervisor } from '../supervisor.js';
import type { AgentProfile, SupervisorLimits, SupervisorOptions } from '../types.js';

export const TEST_LIMITS: SupervisorLimits = {
  maxConcurrentRuns: 8,
  maxWarmSessions: 4,
  maxTrackedHandles: 64,
  maxOutputBytes: 64 * 1024,
  defaultTimeoutMs: 10_000,
  killGraceMs: 300,
};

export function sh(name: string, script: string, extra: Partial<AgentProfile> = {}): AgentProfile {
  return { name, mode: 'plain', command: '/bin/sh', args: ['-c', script], ...extra };
}

export function testProfiles(): AgentProfile[] {
  if (!existsSync(exampleAgentPath())) {
    throw new Error(`${exampleAgentPath()} is missing: build apps/agentd first (turbo run build)`);
  }
  return [
    exampleAgentProfile('example'),
    { name: 'cat', mode: 'plain', command: 'cat' },
    sh('upper', 'tr a-z A-Z'),
    sh('hang', 'sleep 30'),
  ];
}

const created: Supervisor[] = [];

export type TestOptions = Partial<Omit<SupervisorOptions, 'limits'>> & { limits?: Partial<SupervisorLimits> };

export function makeSupervisor(overrides: TestOptions = {}): Supervisor {
  const { limits, ...rest } = overrides;
  const supervisor = new Supervisor({
    profiles: testProfiles(),
    defaultAgent: 'example',
    ...rest,
    limits: { ...TEST_LIMITS, ...limits },
  });
  created.push(supervisor);
  return supervisor;
}

/** Kills every child of every supervisor a test created (use in afterEach). */
export async function disposeAll(): Promise<void> {
  await Promise.all(created.splice(0).map((supervisor) => supervisor.dispose()));
}

/** Polls `check` every 10 ms until it returns true; fails after `limitMs` (a bound, not a timing assertion). */
export async function waitUntil(check: () => boolean, limitMs = 5000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** True when no live process has this pid (a zombie waiting for a reaper counts as gone). */
export function processGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return true;
  }
}

/** Test fixtures for the supervisor: profiles over real commands, a supervisor factory, process checks. */
import { readFileSync } from 'node:fs';
import { Supervisor } from '../supervisor.js';
import type { AgentProfile, SubagentStatus, SupervisorLimits, SupervisorOptions } from '../types.js';
import { testAgentProfile } from './test-agent.js';

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

/** `example` is the test agent here: the built-in one has none of the faults these tests inject. */
export function testProfiles(): AgentProfile[] {
  return [
    testAgentProfile('example'),
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

/**
 * Resolves with the first status of `handle` that `done` accepts: the current one, or the status
 * event that makes it so (the test's timeout bounds the wait).
 */
export function statusWhen(
  supervisor: Supervisor,
  handle: string,
  done: (status: SubagentStatus) => boolean,
): Promise<SubagentStatus> {
  return new Promise((resolve) => {
    const check = (status: SubagentStatus): void => {
      if (status.handle !== handle || !done(status)) return;
      supervisor.off('status', check);
      resolve(status);
    };
    supervisor.on('status', check);
    check(supervisor.status(handle));
  });
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

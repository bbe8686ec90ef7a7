/** Validates and normalises a Supervisor configuration; a bad one is refused as a whole. */
import { LocalError } from '@agentd/rpc-frame';
import type { AgentdErrorCode } from '../local-errors.js';
import { checkPermissionPolicy } from './permission-policy.js';
import { budgetProblem } from './run-usage.js';
import type { AgentProfile, SupervisorConfig, SupervisorLimits } from './types.js';

export type EffectiveLimits = Required<SupervisorLimits>;

export interface EffectiveConfig {
  profiles: ReadonlyMap<string, Readonly<AgentProfile>>;
  defaultAgent: string;
  limits: Readonly<EffectiveLimits>;
}

/** setTimeout's largest delay; a longer one would fire immediately. */
export const MAX_TIMER_MS = 2_147_483_647;

const MODES: ReadonlySet<unknown> = new Set(['protocol', 'plain', 'claude', 'acp']);

const LIMIT_DEFAULTS = {
  maxTimeoutMs: MAX_TIMER_MS,
  killGraceMs: 2000,
  warmIdleTimeoutMs: 900_000,
  stderrTailBytes: 4096,
  maxInstructionBytes: 1024 * 1024,
  // Fair share (issue 39): operators keep one run and one warm session however busy restricted peers are.
  reservedRuns: 1,
  reservedWarmSessions: 1,
  restrictedRunsPerPrincipal: 2,
  restrictedWarmSessionsPerPrincipal: 2,
  restrictedMaxTimeoutMs: 3_600_000,
} as const;

/** Minimum value of each limit; counts may be 0 (that kind of work is switched off). */
const LIMIT_MINIMUMS: Record<keyof EffectiveLimits, number> = {
  maxConcurrentRuns: 0,
  maxWarmSessions: 0,
  maxTrackedHandles: 1,
  maxOutputBytes: 1,
  defaultTimeoutMs: 1,
  maxTimeoutMs: 1,
  killGraceMs: 0,
  warmIdleTimeoutMs: 0,
  stderrTailBytes: 0,
  maxInstructionBytes: 1,
  reservedRuns: 0,
  reservedWarmSessions: 0,
  restrictedRunsPerPrincipal: 1,
  restrictedWarmSessionsPerPrincipal: 1,
  restrictedMaxTimeoutMs: 1,
};

function invalid(path: string, message: string): LocalError {
  return new LocalError<AgentdErrorCode>('invalid_config', `${path}: ${message}`);
}

export function checkConfig(config: SupervisorConfig): EffectiveConfig {
  const limits = checkLimits(config.limits);
  if (!Array.isArray(config.profiles) || config.profiles.length === 0) {
    throw invalid('profiles', 'at least one agent profile is required');
  }
  const profiles = new Map<string, Readonly<AgentProfile>>();
  config.profiles.forEach((profile, index) => {
    const checked = checkProfile(profile, `profiles[${index}]`, limits);
    if (profiles.has(checked.name))
      throw invalid(`profiles[${index}].name`, `duplicate agent name "${checked.name}"`);
    profiles.set(checked.name, checked);
  });
  if (!profiles.has(config.defaultAgent)) {
    throw invalid('defaultAgent', `"${String(config.defaultAgent)}" is not one of the profiles`);
  }
  return { profiles, defaultAgent: config.defaultAgent, limits };
}

function checkLimits(input: SupervisorLimits): Readonly<EffectiveLimits> {
  if (typeof input !== 'object' || input === null) throw invalid('limits', 'must be an object');
  const limits: EffectiveLimits = { ...LIMIT_DEFAULTS, ...input };
  for (const key of Object.keys(LIMIT_MINIMUMS) as (keyof EffectiveLimits)[]) {
    const value = limits[key];
    if (!Number.isSafeInteger(value) || value < LIMIT_MINIMUMS[key]) {
      throw invalid(
        `limits.${key}`,
        `must be an integer >= ${LIMIT_MINIMUMS[key]} (got ${JSON.stringify(value)})`,
      );
    }
  }
  for (const key of [
    'maxTimeoutMs',
    'defaultTimeoutMs',
    'killGraceMs',
    'warmIdleTimeoutMs',
    'restrictedMaxTimeoutMs',
  ] as const) {
    if (limits[key] > MAX_TIMER_MS) throw invalid(`limits.${key}`, `must be at most ${MAX_TIMER_MS}`);
  }
  if (limits.defaultTimeoutMs > limits.maxTimeoutMs) {
    throw invalid('limits.defaultTimeoutMs', 'must not exceed limits.maxTimeoutMs');
  }
  return Object.freeze(limits);
}

function checkProfile(profile: AgentProfile, path: string, limits: EffectiveLimits): Readonly<AgentProfile> {
  if (typeof profile !== 'object' || profile === null) throw invalid(path, 'must be an object');
  if (typeof profile.name !== 'string' || profile.name.length === 0) {
    throw invalid(`${path}.name`, 'must be a non-empty string');
  }
  if (!MODES.has(profile.mode)) {
    throw invalid(`${path}.mode`, 'must be "protocol", "plain", "claude" or "acp"');
  }
  // Claude Code's executable is `claude` unless the profile says otherwise.
  if (profile.mode === 'claude' && profile.command === undefined) profile = { ...profile, command: 'claude' };
  if (typeof profile.command !== 'string' || profile.command.length === 0) {
    throw invalid(`${path}.command`, 'must be a non-empty string');
  }
  if (profile.args !== undefined && !isStringArray(profile.args)) {
    throw invalid(`${path}.args`, 'must be an array of strings');
  }
  if (profile.env !== undefined && !isStringRecord(profile.env)) {
    throw invalid(`${path}.env`, 'must map names to string values');
  }
  if (profile.cwd !== undefined && typeof profile.cwd !== 'string')
    throw invalid(`${path}.cwd`, 'must be a string');
  if (profile.timeoutMs !== undefined) {
    const t = profile.timeoutMs;
    if (!Number.isSafeInteger(t) || t < 1 || t > limits.maxTimeoutMs) {
      throw invalid(`${path}.timeoutMs`, `must be an integer from 1 to ${limits.maxTimeoutMs}`);
    }
  }
  const conversation = checkConversationFields(profile, path);
  // A frozen copy: a running child keeps exactly the profile it started with, whatever reloads follow.
  return Object.freeze({
    ...profile,
    ...conversation,
    ...(profile.args === undefined ? {} : { args: Object.freeze([...profile.args]) as string[] }),
    ...(profile.env === undefined ? {} : { env: Object.freeze({ ...profile.env }) }),
  });
}

/** The fields of `claude` and `acp` profiles: permissions, budget, idle timeout, acp's client methods. */
function checkConversationFields(profile: AgentProfile, path: string): Partial<AgentProfile> {
  const checked: Partial<AgentProfile> = {};
  if (profile.permissions !== undefined) {
    const policy = checkPermissionPolicy(profile.permissions);
    if (Array.isArray(policy)) throw invalid(`${path}.permissions${policy[0]}`, policy[1]);
    checked.permissions = policy;
  }
  if (profile.budget !== undefined) {
    const problem = budgetProblem(profile.budget);
    if (problem !== undefined) throw invalid(`${path}.budget${problem[0]}`, problem[1]);
    checked.budget = Object.freeze({ ...profile.budget });
  }
  const idle = profile.idleTimeoutMs;
  if (idle !== undefined && (!Number.isSafeInteger(idle) || idle < 0 || idle > MAX_TIMER_MS))
    throw invalid(`${path}.idleTimeoutMs`, `must be an integer from 0 (never) to ${MAX_TIMER_MS}`);
  for (const key of ['allowFileSystem', 'allowTerminal'] as const) {
    const value = profile[key];
    if (value === undefined) continue;
    if (typeof value !== 'boolean') throw invalid(`${path}.${key}`, 'must be true or false');
    if (profile.mode !== 'acp') throw invalid(`${path}.${key}`, 'applies to acp agents only');
  }
  return checked;
}

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}

function isStringRecord(value: unknown): value is Record<string, string> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  return Object.values(value).every((item) => typeof item === 'string');
}

/**
 * The Supervisor seam of agentd: spawns subagents from agent profiles and tracks their runs.
 * This file is the seam's public API; everything not listed here is internal.
 */

export type { ResumableSession, ResumeSource } from './create-run.js';
export { exampleAgentProfile } from './example-agent-profile.js';
export { Supervisor } from './supervisor.js';
export type {
  AgentEvent,
  AgentProfile,
  RunStarter,
  SpawnRequest,
  SubagentStatus,
  SupervisorConfig,
} from './types.js';

/**
 * The Supervisor seam of agentd: spawns subagents from agent profiles and tracks their runs.
 * This file is the seam's public API; everything not listed here is internal.
 */
export { exampleAgentPath, exampleAgentProfile } from './example-agent-profile.js';
export { Supervisor, type SupervisorListeners } from './supervisor.js';
export type {
  AgentEvent,
  AgentProfile,
  FailureCode,
  LogEntry,
  Logger,
  PlainTailLine,
  RefusalCode,
  SendOptions,
  SendResult,
  SpawnObserver,
  SpawnRequest,
  SubagentError,
  SubagentState,
  SubagentStatus,
  SupervisorConfig,
  SupervisorLimits,
  SupervisorOptions,
  SupervisorSnapshot,
  SupervisorTotals,
} from './types.js';

/** Maps config sections onto the Supervisor's configuration. */
import type { AgentdConfig } from '../config/config-schema.js';
import type { AgentProfile, SupervisorConfig } from '../supervisor/index.js';

export function supervisorConfig(config: AgentdConfig): SupervisorConfig {
  const profiles: AgentProfile[] = Object.entries(config.agents).map(([name, p]) => ({ name, ...p }));
  return { profiles, defaultAgent: config.defaultAgent, limits: { ...config.limits } };
}

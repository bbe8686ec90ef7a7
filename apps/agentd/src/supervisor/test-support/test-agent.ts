/** The test agent (test-agent.mjs, the faults tests inject): its path, as a profile and as config. */
import { fileURLToPath } from 'node:url';
import type { AgentProfile } from '../types.js';

const TEST_AGENT_PATH = fileURLToPath(new URL('./test-agent.mjs', import.meta.url));

/** As an `agents` entry of a config file: e2e tests replace the built-in `example` with it. */
export const TEST_AGENT_CONFIG = {
  mode: 'protocol',
  command: process.execPath,
  args: [TEST_AGENT_PATH],
} as const satisfies Omit<AgentProfile, 'name'>;

export function testAgentProfile(name: string): AgentProfile {
  return { name, ...TEST_AGENT_CONFIG, args: [...TEST_AGENT_CONFIG.args] };
}

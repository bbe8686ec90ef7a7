/** The built-in example agent: where its compiled file is and the profile that runs it. */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { AgentProfile } from './types.js';

/**
 * Absolute path of the compiled example agent. From `dist/supervisor/` it is the sibling
 * `dist/agents/example-agent.js`; from sources (`src/supervisor/`, under vitest) it is the
 * built file in `dist/`, which the test command builds first.
 */
export function exampleAgentPath(): string {
  const beside = fileURLToPath(new URL('../agents/example-agent.js', import.meta.url));
  if (existsSync(beside)) return beside;
  return fileURLToPath(new URL('../../dist/agents/example-agent.js', import.meta.url));
}

/** A protocol-mode profile for the example agent, run by the current Node binary. */
export function exampleAgentProfile(name = 'example'): AgentProfile {
  return {
    name,
    mode: 'protocol',
    command: process.execPath,
    args: [exampleAgentPath()],
    description:
      'Built-in example agent: echo, uppercase, count words, sleep, warm turns (see agent-protocol.md).',
  };
}

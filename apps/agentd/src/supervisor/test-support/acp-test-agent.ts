/** The ACP test agent (acp-test-agent.mjs) as a profile, and a permission broker tests script. */
import { fileURLToPath } from 'node:url';
import type { PermissionBroker, PermissionDecision, PermissionRequest } from '../run-event.js';
import type { AgentProfile } from '../types.js';

const ACP_TEST_AGENT_PATH = fileURLToPath(new URL('./acp-test-agent.mjs', import.meta.url));

export function acpTestProfile(
  name: string,
  extra: Partial<AgentProfile> = {},
  flags: string[] = [],
): AgentProfile {
  return { name, mode: 'acp', command: process.execPath, args: [ACP_TEST_AGENT_PATH, ...flags], ...extra };
}

/** How the scripted broker answers: pick the first option of a kind, or hold until the turn ends. */
export type ScriptedAnswer = 'allow' | 'reject' | 'hold';

export interface ScriptedBroker extends PermissionBroker {
  answer: ScriptedAnswer;
  readonly requests: PermissionRequest[];
  readonly decisions: PermissionDecision[];
}

export function scriptedBroker(answer: ScriptedAnswer): ScriptedBroker {
  const broker: ScriptedBroker = {
    answer,
    requests: [],
    decisions: [],
    async decide(_run, request, signal) {
      broker.requests.push(request);
      const decision = await decideOne(broker.answer, request, signal);
      broker.decisions.push(decision);
      return decision;
    },
  };
  return broker;
}

function decideOne(
  answer: ScriptedAnswer,
  request: PermissionRequest,
  signal: AbortSignal,
): Promise<PermissionDecision> {
  const cancelled: PermissionDecision = { outcome: 'cancelled', by: 'cancelled' };
  if (signal.aborted) return Promise.resolve(cancelled);
  if (answer === 'hold') {
    return new Promise((resolve) =>
      signal.addEventListener('abort', () => resolve(cancelled), { once: true }),
    );
  }
  const wanted = answer === 'allow' ? 'allow_once' : 'reject_once';
  const option = request.options.find((candidate) => candidate.kind === wanted);
  if (option === undefined) return Promise.resolve(cancelled);
  return Promise.resolve({ outcome: 'selected', optionId: option.optionId, kind: option.kind, by: 'policy' });
}

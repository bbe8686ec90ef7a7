/** The waits of an ACP run: a request's answer (unless the run ends first), bounded graces. */
import { RequestError } from '@agentclientprotocol/sdk/unstable';
import { agentError } from './exit-outcome.js';
import type { SubagentError } from './types.js';

export type Settled = { ok: true; value: unknown } | { ok: false; error: SubagentError };

/**
 * A request's answer: its value or its JSON-RPC error; `ended` when the run ended first; `lost`
 * when the connection closed under it (the exit, or the violation that closed it, explains why).
 */
export async function settle(
  request: Promise<unknown>,
  runDone: Promise<void>,
): Promise<Settled | 'ended' | 'lost'> {
  const answer = await Promise.race([
    request.then(
      (value) => ({ ok: true as const, value }),
      (error: unknown) => ({ ok: false as const, error }),
    ),
    runDone.then(() => 'ended' as const),
  ]);
  if (answer === 'ended' || answer.ok) return answer;
  if (!(answer.error instanceof RequestError)) return 'lost';
  const { code, message, data } = answer.error;
  return { ok: false, error: agentError({ code, message, ...(data === undefined ? {} : { data }) }) };
}

/** Waits for `work`, at most `ms`. */
export async function withinGrace(work: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const grace = new Promise((done) => {
    timer = setTimeout(done, ms);
  });
  await Promise.race([work, grace]);
  clearTimeout(timer);
}

/**
 * `subagent.spawn` (sync), `subagent.send` and `subagent.attach` for a 2026-07-28 caller outside a
 * task: the same waits, except that a permission prompt ends the call with `input_required`
 * and its retry picks the run up again (parked-prompts.ts).
 */
import type { JsonObject } from '@agentd/rpc-frame';
import type { SpawnRequest, SubagentStatus, Supervisor } from '../supervisor/index.js';
import type { PermissionRequest } from '../supervisor/run-event.js';
import type { SendOptions } from '../supervisor/types.js';
import type { OperationContext } from './operation-spec.js';
import { applyRetryAnswers, ModernWait, PARKED, type ParkedPrompts } from './parked-prompts.js';
import { attachRun } from './run-attach.js';
import { forwardRunEvents } from './run-event-forward.js';
import type { RunIndex } from './run-index.js';
import { turnView } from './run-view.js';

export interface ModernHost {
  supervisor: Supervisor;
  runs: RunIndex;
  prompts: ParkedPrompts;
}

/** Follows a run until it settles (or the next prompt parks the call), asking prompts already pending. */
async function follow(
  host: ModernHost,
  context: OperationContext,
  run: { handle: string; runId: string; answered?: Set<string> },
  answers = true,
): Promise<SubagentStatus | JsonObject | typeof PARKED> {
  const { handle, runId } = run;
  const wait = new ModernWait(
    context,
    host.prompts,
    () => handle,
    () => runId,
    answers,
  );
  const watching = attachRun(
    host.supervisor,
    host.runs,
    handle,
    { ...context, signal: wait.leave },
    wait.gate(forwardRunEvents(context, { runId: () => runId, handle: () => handle })),
    wait.answerer,
  );
  // Prompts that arrived while no call waited are put to this one.
  const pending = localPending(host.supervisor, handle).filter(
    (p) => run.answered?.has(p.requestId) !== true,
  );
  for (const request of pending) void wait.answerer(request, wait.leave);
  return wait.run(watching);
}

function localPending(supervisor: Supervisor, handle: string): PermissionRequest[] {
  try {
    return (supervisor.status(handle).pendingPermissions ?? []).map(({ requestId, toolCall, options }) => ({
      requestId,
      toolCall,
      options,
    }));
  } catch {
    return [];
  }
}

export async function modernSpawn(
  host: ModernHost,
  request: SpawnRequest,
  context: OperationContext,
  onStart: (status: SubagentStatus) => void,
): Promise<SubagentStatus | JsonObject | typeof PARKED> {
  const retry = await applyRetryAnswers(context, host.prompts, host.supervisor);
  if (retry !== undefined) return follow(host, context, retry);
  let started: SubagentStatus | undefined;
  const wait = new ModernWait(
    context,
    host.prompts,
    () => started?.handle,
    () => started?.runId,
  );
  const work = host.supervisor.spawn(request, wait.signal, {
    onStart: (status) => {
      started = status;
      onStart(status);
    },
    onEvent: wait.gate(
      forwardRunEvents(context, { runId: () => started?.runId, handle: () => started?.handle }),
    ),
    onPermission: wait.answerer,
  });
  return wait.run(work);
}

export async function modernSend(
  host: ModernHost,
  handle: string,
  message: string,
  context: OperationContext,
  options: SendOptions,
  answers: boolean,
): Promise<JsonObject | null> {
  const retry = await applyRetryAnswers(context, host.prompts, host.supervisor, handle);
  if (retry !== undefined) {
    const status = await follow(host, context, retry, answers);
    if (status === PARKED) return PARKED;
    // The turn's reply as subagent.send answers it, from the status it left.
    return turnView({
      handle,
      turn: status.turns,
      reply: status.result ?? null,
      isError: status.error !== undefined,
      output: status.output ?? '',
    });
  }
  // A conversation a restart left `lost` is not tracked until send continues it (same handle).
  let runId: string | undefined;
  const runIdOf = (): string => {
    runId ??= host.supervisor.status(handle).runId;
    return runId;
  };
  const wait = new ModernWait(context, host.prompts, () => handle, runIdOf, answers);
  const work = host.supervisor.send(handle, message, wait.signal, {
    ...options,
    onEvent: wait.gate(forwardRunEvents(context, { runId: runIdOf, handle: () => handle })),
    onPermission: wait.answerer,
  });
  const reply = await wait.run(work);
  return reply === PARKED ? PARKED : turnView(reply);
}

export async function modernAttach(
  host: ModernHost,
  handle: string,
  context: OperationContext,
  answers: boolean,
): Promise<SubagentStatus | JsonObject | typeof PARKED> {
  const retry = await applyRetryAnswers(context, host.prompts, host.supervisor, handle);
  if (retry !== undefined) return follow(host, context, retry, answers);
  let runId: string;
  try {
    runId = host.supervisor.status(handle).runId;
  } catch {
    // Not live here: a stored run replays its events, another replica's is polled (no prompts).
    const forward = forwardRunEvents(context, { runId: () => undefined, handle: () => handle });
    return attachRun(host.supervisor, host.runs, handle, context, forward);
  }
  return follow(host, context, { handle, runId }, answers);
}

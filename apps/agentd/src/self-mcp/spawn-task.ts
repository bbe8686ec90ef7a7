/**
 * An async `subagent.spawn` as an MCP task (2026-07-28 tasks extension, 2025-11-25 tasks): the
 * call answers with a task, the task follows the run (`tasks/get`), `tasks/cancel` cancels it,
 * and a warm session waiting for its next turn is a task in `input_required` whose answer
 * (`tasks/update`, or the 2025-11-25 `tasks/result` stream) is sent as that turn.
 */
import type { JsonObject } from '@agentd/rpc-frame';
import type { SpawnRequest, SubagentStatus, Supervisor } from '../supervisor/index.js';
import type { OperationContext } from './operation-spec.js';
import { elicitingAnswerer } from './permission-elicit.js';
import { turnView } from './run-view.js';
import { statusJson } from './status-json.js';

/** How long a spawn task (and its result) stays retrievable: the longest turn plus time to collect it. */
export const SPAWN_TASK_TTL_MS = 6 * 60 * 60 * 1000;

const TURN_SCHEMA = {
  type: 'object',
  properties: { message: { type: 'string', description: 'The next message for the session' } },
  required: ['message'],
};

/**
 * Runs a spawn inside its task: waits for the terminal state (one-shot) or drives the warm
 * session turn by turn through client input until the client declines (the session is then
 * closed). The task's abort (tasks/cancel, TTL, shutdown) cancels the run.
 */
export async function runSpawnTask(
  supervisor: Supervisor,
  request: SpawnRequest,
  context: OperationContext,
  onStart: (handle: string) => void,
): Promise<JsonObject> {
  let runId: string | undefined;
  // Inside the task the caller answers through the task's input_required, in either era.
  const onPermission = elicitingAnswerer(context, () => runId, true);
  const first = await supervisor.spawn({ ...request, async: false }, context.signal, {
    onStart: (started) => {
      runId = started.runId;
      onStart(started.handle);
    },
    ...(onPermission === undefined ? {} : { onPermission }),
  });
  if (!first.warm || first.terminal) return statusJson(first);
  let status: SubagentStatus = first;
  let last: unknown = first.result;
  for (let turn = 1; !status.terminal; turn++) {
    let answer: JsonObject;
    try {
      answer = await context.elicit(
        {
          mode: 'form',
          message: `Warm session ${status.runId} is ready (turn ${turn}). Reply with the next message, or decline to end the session.`,
          requestedSchema: TURN_SCHEMA,
        },
        { key: `turn_${turn}` },
      );
    } catch (error) {
      // A client that cannot answer (no elicitation declared) keeps the session: subagent.send drives it.
      if (context.signal.aborted) throw error;
      return { ...statusJson(status), lastReply: jsonOf(last) };
    }
    const message = (answer.content as JsonObject | undefined)?.message;
    if (answer.action !== 'accept' || typeof message !== 'string' || message === '') {
      status = await supervisor.closeSession(status.handle);
      break;
    }
    const reply = await supervisor.send(status.handle, message, context.signal, {
      ...(onPermission === undefined ? {} : { onPermission }),
    });
    last = reply.reply;
    status = supervisor.status(status.handle);
  }
  return { ...statusJson(status), lastReply: jsonOf(last) };
}

/** The last turn, bounded as every turn answer is (run-view.ts). */
function jsonOf(value: unknown): JsonObject | null {
  return turnView(value);
}

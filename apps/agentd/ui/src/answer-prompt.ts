/**
 * Answers a run's permission request from the page with `subagent.approve`: the option the
 * clicked button stands for, or a plain deny. The decision shows at once (the daemon's own event
 * replaces it on the next read of the run); a request someone else answered first is said so, and
 * its prompt goes with that read.
 */
import type { AgentdApi } from './agentd-api.js';
import { type Json, problem } from './connection.js';
import type { EventLog } from './event-log.js';
import { entryOf } from './run-events.js';

export interface AnswerHooks {
  render(): void;
  notice(text: string | undefined): void;
  /** Once answered (or refused): read the run again, for its prompts and events. */
  settled(): void;
}

export function answerPrompt(
  api: AgentdApi,
  log: EventLog,
  handle: string,
  button: DOMStringMap,
  answering: Set<string>,
  hooks: AnswerHooks,
): void {
  const requestId = button.requestId;
  if (requestId === undefined || answering.has(requestId)) return;
  const args: Json = { handle, requestId };
  if (button.optionId !== undefined) args.optionId = button.optionId;
  else args.decision = 'deny';
  answering.add(requestId);
  hooks.render();
  api
    .op('command', 'subagent.approve', args)
    .then((answered) => {
      const known = log.entries.some(
        (e) => e.event.type === 'permission_decision' && e.event.requestId === requestId,
      );
      const entry = known ? undefined : entryOf({ type: 'permission_decision', ...answered });
      if (entry !== undefined) log.push(entry);
      hooks.notice(undefined);
    })
    .catch((error: unknown) => hooks.notice(`answer failed: ${problem(error)}`))
    .finally(() => {
      answering.delete(requestId);
      hooks.settled();
    });
}

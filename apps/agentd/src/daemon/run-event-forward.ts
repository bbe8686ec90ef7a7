/**
 * A run's events as the MCP caller waiting on it receives them (sync spawn, send, attach): every
 * event as a `notifications/message` at level `info` whose data is
 * `{event: "run_event", handle?, runId, run}` (texts cut to a few KB), each finished turn as a
 * progress notification (its number), and, as before, a protocol agent's own progress and log
 * events as progress and log notifications.
 */
import { parseLogLevel } from '../log/log-level.js';
import { boundEventTexts } from '../supervisor/event-ring.js';
import type { AgentEvent } from '../supervisor/index.js';
import type { OperationContext } from './operation-spec.js';

/** Characters of any one text of a forwarded event. */
const FORWARD_TEXT_CHARS = 4096;

/** Names the run of the notifications; the handle only to a caller that already holds it. */
export interface ForwardTarget {
  runId: () => string | undefined;
  handle: () => string | undefined;
}

export function forwardRunEvents(
  context: OperationContext,
  target: ForwardTarget,
): (event: AgentEvent) => void {
  return (event) => {
    if (event.type === 'progress' && typeof event.progress === 'number') {
      const total = typeof event.total === 'number' ? event.total : undefined;
      const message = typeof event.message === 'string' ? event.message : undefined;
      context.progress(event.progress, total, message);
      return;
    }
    if (event.type === 'log') {
      context.log(parseLogLevel(event.level) ?? 'info', event.message ?? event);
      return;
    }
    const data: Record<string, unknown> = { event: 'run_event' };
    const handle = target.handle();
    if (handle !== undefined) data.handle = handle;
    data.runId = target.runId() ?? null;
    data.run = boundEventTexts(event, FORWARD_TEXT_CHARS);
    context.log('info', data);
    // A turn done is progress too: a bare counter (a message would read as the agent's output).
    if (event.type === 'turn_end' && typeof event.turn === 'number') context.progress(event.turn);
  };
}

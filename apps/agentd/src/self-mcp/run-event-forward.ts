/**
 * A run's events as the MCP caller waiting on it receives them (sync spawn, send, attach): every
 * event as a `notifications/message` at level `info` whose data is
 * `{event: "run_event", handle?, runId, run}` (texts cut to a few KB), each finished turn as a
 * progress notification (its number), and, as before, a protocol agent's own progress and log
 * events as progress and log notifications. Output lines (`message` events marked with a `stream`:
 * a plain run's stdout, any agent's stderr) go out as they always have: a stdout line as a
 * progress notification (its line number), a stderr line as a log notification.
 */
import { parseLogLevel } from '../log/log-level.js';
import { boundEventTexts } from '../supervisor/event-ring.js';
import type { AgentEvent } from '../supervisor/index.js';
import { isOutputLine } from '../supervisor/output-lines.js';
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
  let stdoutLines = 0;
  return (event) => {
    if (isOutputLine(event)) {
      if (event.stream === 'stdout') context.progress(++stdoutLines, undefined, event.text);
      else context.log('info', event.text);
      return;
    }
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

/**
 * The suite's `test_reconnection` fixture (`server-sse-polling`, SEP-1699): on a legacy
 * (2025-11-25) POST stream it closes the connection right after the priming event, then
 * answers; the client resumes with GET + `Last-Event-ID` and gets the result there. Where no
 * stream can be resumed (2026-07-28, other transports) it simply answers.
 */
import type { Dispatcher } from '@agentd/dispatch';

/** Long enough that the answer is certainly not on the closed POST stream, well inside the suite's 5 s resume window. */
const ANSWER_AFTER_MS = 300;

export function registerSsePollingTool(dispatcher: Dispatcher): void {
  dispatcher.registerTool({
    name: 'test_reconnection',
    description: 'Closes its SSE stream mid-call (legacy resumable HTTP), then answers on the resumed stream',
    handler: async (_args, ctx) => {
      const closed = ctx.request.closeStream !== undefined;
      ctx.request.closeStream?.();
      await new Promise((resolve) => setTimeout(resolve, ANSWER_AFTER_MS));
      return closed
        ? 'Reconnection test completed (answered after the stream closed)'
        : 'Reconnection test completed';
    },
  });
}

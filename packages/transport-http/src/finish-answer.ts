/** Ends a request's HTTP answer: the final SSE event, a JSON body, or nothing left to say. */
import type { JsonRpcResponse } from '@agentd/rpc-frame';
import { statusOf } from './error-status.js';
import { sendEmpty, sendJson } from './replies.js';
import type { SseStream } from './sse-stream.js';
import type { Caller } from './transport-context.js';

/** A request cancelled or cut at shutdown has no response: its stream ends, or 204 when unstarted. */
export function finishAnswer(
  caller: Caller,
  stream: SseStream,
  response: JsonRpcResponse | undefined,
  modern: boolean,
): void {
  if (stream.closed) return;
  if (stream.started) {
    stream.end(response);
    return;
  }
  if (response === undefined) sendEmpty(caller.res, 204, caller.corsHeaders);
  else sendJson(caller.res, statusOf(response, modern), response, caller.corsHeaders);
}

/** Ends a request's HTTP answer: the final SSE event, a JSON body, or an empty event stream. */
import { type Era, requiredScopesOf } from '@agentd/lifecycle';
import type { JsonRpcResponse } from '@agentd/rpc-frame';
import { answerStatus } from './http-status.js';
import { sendJson } from './replies.js';
import type { SseStream } from './sse-stream.js';
import type { Caller } from './transport-context.js';

/**
 * A request cancelled (or whose session ended, or cut at shutdown) has no response, but a POST
 * that carried a request must still end as JSON or SSE: official clients reject anything else
 * (a 204 has no content type). An SSE stream with no events ends it cleanly; with no event id
 * there is nothing to resume, so clients do not reconnect. An insufficient-scope answer (step-up)
 * carries its `WWW-Authenticate` challenge; on an SSE stream already started it stays a
 * JSON-RPC error only (the status was sent).
 */
export function finishAnswer(
  caller: Caller,
  stream: SseStream,
  response: JsonRpcResponse | undefined,
  era: Era,
): void {
  // Closed: a resumable stream still records the response (or its end) for the client that resumes.
  if (stream.closed || stream.started || response === undefined) {
    stream.end(response);
    return;
  }
  const scopes = requiredScopesOf(response);
  const headers =
    scopes === undefined
      ? caller.corsHeaders
      : { ...caller.corsHeaders, 'www-authenticate': caller.scopeChallenge(scopes) };
  sendJson(caller.out, answerStatus(response, era), response, headers);
}

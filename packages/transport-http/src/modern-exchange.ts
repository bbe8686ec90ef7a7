/** Modern (2026-07-28) POSTs: one cheap core connection per request, JSON or SSE answer. */
import {
  checkParamHeaders,
  listenFinalResult,
  modernResult,
  type Refusal,
  type RequestClass,
} from '@agentd/lifecycle';
import { type JsonRpcRequest, type JsonRpcResponse, successResponse } from '@agentd/rpc-frame';
import { finishAnswer } from './finish-answer.js';
import { sendRefusal } from './replies.js';
import { SseStream } from './sse-stream.js';
import { startTimeout, stopTimer } from './timer.js';
import { type Caller, makePeer, type TransportContext, traceCarrierOf } from './transport-context.js';

function toolParamsRefusal(
  context: TransportContext,
  request: JsonRpcRequest,
  caller: Caller,
): Refusal | undefined {
  const lookup = context.options.toolParamHeaders;
  const name = request.params?.name;
  if (lookup === undefined || request.method !== 'tools/call' || typeof name !== 'string') return undefined;
  const headers = lookup(name);
  if (headers === undefined || headers.length === 0) return undefined;
  return checkParamHeaders(headers, request.params?.arguments, caller.headers);
}

/** A request the lifecycle classification let through (envelope and mirrored headers valid). */
export async function serveModernRequest(
  context: TransportContext,
  caller: Caller,
  request: JsonRpcRequest,
  classified: RequestClass,
): Promise<void> {
  const refusal = toolParamsRefusal(context, request, caller);
  if (refusal !== undefined) {
    sendRefusal(caller.out, request.id, refusal, caller.corsHeaders);
    return;
  }
  const id = context.nextId();
  const stream = new SseStream(caller.out, id, context.sse, caller.corsHeaders);
  const connection = context.core.openConnection(makePeer(id, caller), stream);
  // The client closing its stream before the answer is a cancellation (spec: HTTP cancellation):
  // closing this request's own connection aborts it. After the answer this is a no-op.
  stream.onClose(() => connection.close());
  // A host that notices a client gone only when writing would run a cancelled request to its
  // end: one still running after a keep-alive period is answered as SSE, whose keep-alives probe.
  const probe = caller.out.seesCloseOnWrite
    ? startTimeout(() => stream.start(), context.sse.keepAliveMs)
    : undefined;
  const isListen = request.method === 'subscriptions/listen';
  const exchange = {
    longLived: () => isListen && stream.started,
    shutdown(force: boolean) {
      if (!force) {
        if (isListen) connection.close({ graceful: true });
        return;
      }
      if (isListen && stream.started && !stream.closed) {
        const final = modernResult(listenFinalResult(request.id), context.core.serverInfo);
        stream.end(successResponse(request.id, final));
      }
      connection.close();
    },
  };
  context.exchanges.add(exchange);
  let response: JsonRpcResponse | undefined;
  try {
    // The core answers every failure itself (CoreConnection.handle never rejects).
    response = await connection.handle(
      { kind: 'request', message: request },
      { notify: (message) => stream.write(message), traceCarrier: traceCarrierOf(caller), classified },
    );
  } finally {
    stopTimer(probe);
    connection.close();
    context.exchanges.delete(exchange);
  }
  finishAnswer(caller, stream, response, 'modern');
}

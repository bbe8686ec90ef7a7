/** Modern (2026-07-28) POSTs: one cheap core connection per request, JSON or SSE answer. */
import {
  type Classified,
  errorResponse,
  type JsonRpcRequest,
  type JsonRpcResponse,
  successResponse,
  toWireError,
  type WireError,
} from '@agentd/rpc-frame';
import { finishAnswer } from './finish-answer.js';
import { checkModernEnvelope } from './modern-envelope.js';
import { checkParamHeaders } from './param-headers.js';
import { sendEmpty, sendRpcError } from './replies.js';
import { SseStream } from './sse-stream.js';
import { type Caller, makePeer, type TransportContext } from './transport-context.js';

const SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';

/** Notifications (and stray responses) carry nothing the stateless era acts on over HTTP. */
export function acceptModernMessage(caller: Caller, frame: Classified): void {
  if (frame.kind === 'response') {
    sendRpcError(
      caller.out,
      400,
      null,
      { code: -32600, message: 'Invalid Request: clients must not send responses in protocol 2026-07-28' },
      caller.corsHeaders,
    );
    return;
  }
  sendEmpty(caller.out, 202, caller.corsHeaders);
}

function checkToolParams(
  context: TransportContext,
  request: JsonRpcRequest,
  caller: Caller,
): WireError | undefined {
  const lookup = context.options.toolParamHeaders;
  const name = request.params?.name;
  if (lookup === undefined || request.method !== 'tools/call' || typeof name !== 'string') return undefined;
  const headers = lookup(name);
  if (headers === undefined || headers.length === 0) return undefined;
  return checkParamHeaders(headers, request.params?.arguments, caller.headers);
}

export async function serveModernRequest(
  context: TransportContext,
  caller: Caller,
  request: JsonRpcRequest,
): Promise<void> {
  const envelopeError =
    checkModernEnvelope(request, caller.headers) ?? checkToolParams(context, request, caller);
  if (envelopeError !== undefined) {
    sendRpcError(caller.out, 400, request.id, envelopeError.toJSON(), caller.corsHeaders);
    return;
  }
  const id = context.nextId();
  const stream = new SseStream(caller.out, id, context.sse, caller.corsHeaders);
  const connection = context.core.openConnection(makePeer(id, caller), stream);
  // The client closing its stream before the answer is a cancellation (spec: HTTP cancellation):
  // closing this request's own connection aborts it. After the answer this is a no-op.
  stream.onClose(() => connection.close());
  const isListen = request.method === 'subscriptions/listen';
  const exchange = {
    longLived: () => isListen && stream.started,
    shutdown(force: boolean) {
      if (!force) {
        if (isListen) connection.close({ graceful: true });
        return;
      }
      if (isListen && stream.started && !stream.closed) {
        stream.end(
          successResponse(request.id, { resultType: 'complete', _meta: { [SUBSCRIPTION_ID]: request.id } }),
        );
      }
      connection.close();
    },
  };
  context.exchanges.add(exchange);
  let response: JsonRpcResponse | undefined;
  try {
    response = await connection.handle(
      { kind: 'request', message: request },
      { notify: (message) => stream.write(message) },
    );
  } catch (thrown) {
    response = errorResponse(request.id, toWireError(thrown).toJSON());
  } finally {
    connection.close();
    context.exchanges.delete(exchange);
  }
  finishAnswer(caller, stream, response, true);
}

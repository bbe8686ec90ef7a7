/**
 * POSTs to a core with a wire profile (see `WireProfile` in `@agentd/server`): the body goes to the
 * core as one message, whatever its shape, and every answer is `200 application/json`. HTTP
 * statuses stay for what is not a JSON-RPC exchange: Host/Origin, method, body size, and the
 * headers the profile's `postHeadersRefusal` refuses (media type, for the contract).
 */
import { type Classified, classify, JsonRpcErrorCode } from '@agentd/rpc-frame';
import type { WireProfile } from '@agentd/server';
import type { PushWriter } from '@agentd/subscriptions';
import type { HttpIncoming } from './http-io.js';
import { readPostBody } from './post-body.js';
import { sendEmpty, sendJson } from './replies.js';
import { type Caller, makePeer, type TransportContext, traceCarrierOf } from './transport-context.js';

const NOT_JSON: Classified = { kind: 'invalid', code: JsonRpcErrorCode.ParseError, reason: '', id: null };

/** A profiled POST's connection answers with its response only: request-scoped messages have no stream to go to. */
function answerOnlyWriter(id: string): PushWriter {
  let closed = false;
  return {
    id,
    get closed() {
      return closed;
    },
    write: () => false,
    close() {
      closed = true;
    },
  };
}

export async function serveProfiledPost(
  context: TransportContext,
  caller: Caller,
  incoming: HttpIncoming,
  profile: WireProfile,
): Promise<void> {
  const body = await readPostBody(context, caller, incoming, profile.postHeadersRefusal(caller.headers));
  if (body === undefined) return;
  let frame: Classified;
  try {
    frame = classify(JSON.parse(body));
  } catch {
    frame = NOT_JSON;
  }
  const id = context.nextId();
  const connection = context.core.openConnection(makePeer(id, caller), answerOnlyWriter(id));
  // The client going away cancels the request: closing its own connection aborts it.
  caller.out.onClose(() => connection.close());
  const exchange = {
    longLived: () => false,
    shutdown(force: boolean) {
      if (force) connection.close();
    },
  };
  context.exchanges.add(exchange);
  try {
    const response = await connection.handle(frame, { traceCarrier: traceCarrierOf(caller) });
    if (response === undefined) sendEmpty(caller.out, 202, caller.corsHeaders);
    else sendJson(caller.out, 200, response, caller.corsHeaders);
  } finally {
    connection.close();
    context.exchanges.delete(exchange);
  }
}

/**
 * A legacy `notifications/cancelled` arrives on its own POST, while the request it cancels runs
 * on another. workerd forbids one request to use another's I/O objects (the cancelled request's
 * AbortController among them), so the cancel is handed to the POST that carries the request and
 * runs there (`HttpOutgoing.runner`); the notification is accepted (202) either way.
 */
import { type Classified, errorFields, isRequestId, type Logger, type RequestId } from '@agentd/rpc-frame';
import type { CoreConnection } from '@agentd/server';
import type { HttpOutgoing } from './http-io.js';
import type { Session } from './session-store.js';

function keyOf(id: RequestId): string {
  return `${typeof id}:${id}`;
}

/** Registers the POST answering `id` (on hosts with runners); returns the unregistration. */
export function carryRequest(session: Session, id: RequestId, out: HttpOutgoing): (() => void) | undefined {
  const run = out.runner?.();
  if (run === undefined) return undefined;
  const key = keyOf(id);
  session.carriers.set(key, run);
  return () => {
    if (session.carriers.get(key) === run) session.carriers.delete(key);
  };
}

function cancelledId(frame: Exclude<Classified, { kind: 'invalid' }>): RequestId | undefined {
  if (frame.kind !== 'notification' || frame.message.method !== 'notifications/cancelled') return undefined;
  const id = frame.message.params?.requestId;
  return isRequestId(id) ? id : undefined;
}

/**
 * Hands a notification or a client answer to the core. A failure is logged, never the client's
 * 500: the notification is accepted, and what the platform could not do (abort the handler,
 * which then runs to its end and is answered) is in the log.
 */
export async function deliverLegacyMessage(
  logger: Logger,
  session: Session,
  connection: CoreConnection,
  frame: Exclude<Classified, { kind: 'invalid' | 'request' }>,
): Promise<void> {
  const fail = (thrown: unknown): void => {
    logger.warn('legacy session: a client message could not be delivered', {
      sessionId: session.id,
      ...errorFields(thrown),
    });
  };
  const id = cancelledId(frame);
  const carrier = id === undefined ? undefined : session.carriers.get(keyOf(id));
  if (carrier !== undefined) {
    carrier(() => {
      try {
        connection.handle(frame).then(undefined, fail);
      } catch (thrown) {
        fail(thrown);
      }
    });
    return;
  }
  try {
    await connection.handle(frame);
  } catch (thrown) {
    fail(thrown);
  }
}

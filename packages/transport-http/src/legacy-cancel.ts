/**
 * A legacy `notifications/cancelled` (or a DELETE) arrives on its own request, while the request
 * it cancels runs on another POST. workerd forbids one request to use another's I/O objects (the
 * cancelled request's AbortController among them), so the cancel is handed to the POST that
 * carries the request and runs there (`HttpOutgoing.runner`); the notification is accepted (202)
 * either way, and a DELETE ends the session once its running requests were cancelled.
 */
import {
  type Classified,
  errorFields,
  isRequestId,
  type Logger,
  notification,
  type RequestId,
} from '@agentd/rpc-frame';
import type { CoreConnection } from '@agentd/server';
import type { HttpOutgoing } from './http-io.js';
import type { Carrier, Session } from './session-store.js';
import { startTimeout, stopTimer } from './timer.js';

/** How long a session's end waits for its running requests to be cancelled in their own POSTs. */
const CARRIED_CANCEL_WAIT_MS = 1_000;

function keyOf(id: RequestId): string {
  return `${typeof id}:${id}`;
}

/** Registers the POST answering `id` (on hosts with runners); returns the unregistration. */
export function carryRequest(session: Session, id: RequestId, out: HttpOutgoing): (() => void) | undefined {
  const run = out.runner?.();
  if (run === undefined) return undefined;
  const key = keyOf(id);
  const carrier: Carrier = { id, run };
  session.carriers.set(key, carrier);
  return () => {
    if (session.carriers.get(key) === carrier) session.carriers.delete(key);
  };
}

function cancelledId(frame: Exclude<Classified, { kind: 'invalid' }>): RequestId | undefined {
  if (frame.kind !== 'notification' || frame.message.method !== 'notifications/cancelled') return undefined;
  const id = frame.message.params?.requestId;
  return isRequestId(id) ? id : undefined;
}

type Delivered = Exclude<Classified, { kind: 'invalid' | 'request' }>;

/** `connection.handle`, a failure logged (never the client's 500), resolving either way. */
async function handleLogged(
  logger: Logger,
  session: Session,
  connection: CoreConnection,
  frame: Delivered,
): Promise<void> {
  try {
    await connection.handle(frame);
  } catch (thrown) {
    logger.warn('legacy session: a client message could not be delivered', {
      sessionId: session.id,
      ...errorFields(thrown),
    });
  }
}

/**
 * Hands a notification or a client answer to the core; a cancel of a carried request runs in
 * that request's POST. The notification is accepted either way: what the platform could not do
 * (abort the handler, which then runs to its end and is answered) is in the log.
 */
export async function deliverLegacyMessage(
  logger: Logger,
  session: Session,
  connection: CoreConnection,
  frame: Delivered,
): Promise<void> {
  const id = cancelledId(frame);
  const carrier = id === undefined ? undefined : session.carriers.get(keyOf(id));
  if (carrier === undefined) return handleLogged(logger, session, connection, frame);
  carrier.run(() => void handleLogged(logger, session, connection, frame));
}

/**
 * Before another request ends the session (DELETE), each request still running is cancelled in
 * its own POST (workerd forbids aborting it from here); resolves once all ran, or after a short
 * wait (a POST that finished meanwhile never runs its task), so the end never hangs.
 */
export function cancelCarried(logger: Logger, session: Session, connection: CoreConnection): Promise<void> {
  if (session.carriers.size === 0) return Promise.resolve();
  const cancels = [...session.carriers.values()].map(
    (carrier) =>
      new Promise<void>((resolve) => {
        const frame = {
          kind: 'notification' as const,
          message: notification('notifications/cancelled', {
            requestId: carrier.id,
            reason: 'session ended',
          }),
        };
        carrier.run(() => {
          void handleLogged(logger, session, connection, frame).then(resolve);
        });
      }),
  );
  let timer: ReturnType<typeof startTimeout> | undefined;
  const bound = new Promise<void>((resolve) => {
    timer = startTimeout(resolve, CARRIED_CANCEL_WAIT_MS);
  });
  return Promise.race([Promise.all(cancels).then(() => undefined), bound]).finally(() => stopTimer(timer));
}

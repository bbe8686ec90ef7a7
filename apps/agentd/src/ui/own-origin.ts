/**
 * Whether a request's Origin is exactly this listener's origin. The listener's Origin rule admits
 * every loopback origin, and browsers treat all loopback ports as one site; a dashboard session
 * must not be usable by a page served from another port, so it needs this exact match.
 */
import type { IncomingMessage } from 'node:http';

export function isOwnOrigin(req: IncomingMessage): boolean {
  const { origin, host } = req.headers;
  if (origin === undefined || host === undefined) return false;
  const scheme = (req.socket as { encrypted?: boolean }).encrypted === true ? 'https' : 'http';
  return origin.toLowerCase() === `${scheme}://${host}`.toLowerCase();
}

/**
 * The sign-in link `agentd ui` prints (`/ui/#signin=TOKEN`): the page drops the token from the
 * address bar at once, then trades it at `POST /ui/session` for a session it keeps in this tab
 * (sessionStorage) and sends as its bearer token. Not a cookie: browsers send cookies to every
 * port of a host, so a cookie would reach any other local server the browser visits; the tab's
 * storage belongs to this origin alone, and a header is never sent by a forged cross-site request.
 */
import { PageError } from './connection.js';

const MARK = /^#signin=([A-Za-z0-9_-]+)$/;

/** The session for a sign-in link in the address, or undefined when the page was opened without one. */
export async function signInFromAddress(): Promise<string | undefined> {
  const token = MARK.exec(location.hash)?.[1];
  if (token === undefined) return undefined;
  history.replaceState(history.state, '', `${location.pathname}${location.search}`);
  const response = await fetch('/ui/session', {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
    cache: 'no-store',
    credentials: 'omit',
  });
  const body = (await response.json().catch(() => ({}))) as { session?: unknown; error?: unknown };
  if (response.ok && typeof body.session === 'string') return body.session;
  throw new PageError(
    'unauthorized',
    typeof body.error === 'string' ? body.error : `sign-in failed (HTTP ${response.status})`,
  );
}

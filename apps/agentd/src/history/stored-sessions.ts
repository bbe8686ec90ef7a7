/**
 * Conversations the run store can continue: a `claude` or `acp` run that a restart (or crash) of
 * the daemon ended as `lost`, with the agent's session id in its record. `agentd send HANDLE`
 * continues it in a new agent process under the same handle and run id.
 */
import type { ResumableSession, ResumeSource } from '../supervisor/index.js';
import type { RunStore } from './history-types.js';

const CONTINUABLE_MODES = new Set(['claude', 'acp']);

export function storedSessions(store: RunStore): ResumeSource {
  return async (handle) => {
    const record = await store.get(handle);
    // `get` takes a run id too; a run id must never stand for the handle (the capability).
    if (record?.handle !== handle || record.state !== 'lost') return undefined;
    const { sessionId, mode, agent, startedBy } = record;
    if (typeof sessionId !== 'string' || typeof agent !== 'string' || !CONTINUABLE_MODES.has(String(mode)))
      return undefined;
    const starter = startedBy as { trust?: unknown; principal?: unknown } | undefined;
    if (typeof starter?.principal !== 'string') return undefined;
    const trust = starter.trust === 'management' ? 'management' : 'restricted';
    const principal = starter.principal;
    // Anonymous HTTP peers share one pool share (run-access.ts); everyone else is their own.
    const share = trust === 'restricted' && principal.startsWith('http:') ? 'anonymous' : principal;
    const session: ResumableSession = {
      handle,
      runId: record.runId,
      agent,
      sessionId,
      startedBy: { trust, principal, share },
    };
    return session;
  };
}

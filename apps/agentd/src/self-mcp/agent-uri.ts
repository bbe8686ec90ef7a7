/** The agent:// URI scheme: parsing of resource URIs into a kind and an argument. */

const SCHEME = 'agent://';

export type AgentUri =
  | { kind: 'status' | 'capabilities' | 'config-effective' }
  | { kind: 'inventory'; cursor: string | undefined }
  | { kind: 'events'; after: number; level: string | undefined; query: string }
  | { kind: 'run' | 'subagent' | 'session'; id: string }
  | { kind: 'runs'; params: URLSearchParams }
  | { kind: 'logs'; id: string; after: number };

const SIMPLE: Record<string, AgentUri['kind']> = {
  status: 'status',
  capabilities: 'capabilities',
  'config/effective': 'config-effective',
};

/** Undefined when the text is not an agent:// URI agentd serves. Trims whitespace and a trailing '/'. */
export function parseAgentUri(text: string): AgentUri | undefined {
  const uri = text.trim();
  if (!uri.toLowerCase().startsWith(SCHEME)) return undefined;
  const rest = uri.slice(SCHEME.length);
  const q = rest.indexOf('?');
  const path = (q === -1 ? rest : rest.slice(0, q)).replace(/\/+$/, '');
  const query = q === -1 ? '' : rest.slice(q + 1);
  if (path === 'events') {
    const params = new URLSearchParams(query);
    const afterText = params.get('after') ?? '0';
    if (!/^[0-9]+$/.test(afterText)) return undefined;
    return { kind: 'events', after: Number(afterText), level: params.get('level') ?? undefined, query };
  }
  if (path === 'inventory') {
    // Listings are paged: `cursor` is the `nextCursor` of the page before.
    const params = new URLSearchParams(query);
    if ([...params.keys()].some((k) => k !== 'cursor')) return undefined;
    return { kind: 'inventory', cursor: params.get('cursor') ?? undefined };
  }
  const history = historyUri(path, query);
  if (history !== null) return history;
  if (query !== '') return undefined;
  const simple = SIMPLE[path];
  if (simple !== undefined) return { kind: simple } as AgentUri;
  const match = /^(run|subagent|session)\/([A-Za-z0-9_.-]+)$/.exec(path);
  if (match === null) return undefined;
  return { kind: match[1] as 'run' | 'subagent' | 'session', id: match[2] as string };
}

/** The key subscriptions are stored under: every agent://events?… (or inventory page) query shares one key. */
export function subscriptionKey(canonical: string): string {
  const lower = canonical.toLowerCase();
  if (lower.startsWith(`${SCHEME}events`)) return `${SCHEME}events`;
  return lower.startsWith(`${SCHEME}inventory?`) ? `${SCHEME}inventory` : canonical;
}

const RUNS_PARAMS = new Set(['cursor', 'agent', 'state', 'since', 'limit', 'text']);

/** `agent://runs{?cursor,agent,state,since,limit,text}` and `agent://logs/{handle}{?after}`; null: neither. */
function historyUri(path: string, query: string): AgentUri | undefined | null {
  const params = new URLSearchParams(query);
  if (path === 'runs')
    return [...params.keys()].every((k) => RUNS_PARAMS.has(k)) ? { kind: 'runs', params } : undefined;
  const match = /^logs\/([A-Za-z0-9_.-]+)$/.exec(path);
  if (match === null) return null;
  const after = params.get('after') ?? '0';
  if ([...params.keys()].some((k) => k !== 'after') || !/^[0-9]+$/.test(after)) return undefined;
  return { kind: 'logs', id: match[1] as string, after: Number(after) };
}

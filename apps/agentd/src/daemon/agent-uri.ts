/** The agent:// URI scheme: parsing of resource URIs into a kind and an argument. */

const SCHEME = 'agent://';

export type AgentUri =
  | { kind: 'status' | 'capabilities' | 'config-effective' }
  | { kind: 'inventory'; cursor: string | undefined }
  | { kind: 'events'; after: number; level: string | undefined; query: string }
  | { kind: 'run' | 'subagent' | 'session'; id: string };

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

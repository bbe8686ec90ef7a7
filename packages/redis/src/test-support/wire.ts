/** Raw MCP over HTTP for the scale-out tests: modern (stateless) calls and a legacy session, answers parsed from JSON or SSE. */
import { MetaKey, MODERN_VERSION } from '@agentd/lifecycle';
import { TASKS_EXTENSION } from '@agentd/lifecycle/tasks';

export const TASKS_CAPS = { extensions: { [TASKS_EXTENSION]: {} } };

export interface Answer {
  id?: unknown;
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
}

async function answerOf(res: Response): Promise<Answer> {
  const text = await res.text();
  if (!(res.headers.get('content-type') ?? '').includes('text/event-stream'))
    return JSON.parse(text) as Answer;
  const messages = text
    .split('\n')
    // Empty data: a resumable stream's priming event.
    .filter((line) => line.startsWith('data: ') && line.length > 6)
    .map((line) => JSON.parse(line.slice(6)) as Answer & { method?: string });
  const answer = messages.find((m) => m.method === undefined);
  if (answer === undefined) throw new Error(`no answer in ${text}`);
  return answer;
}

let ids = 0;

/** One 2026-07-28 request (any replica can answer it). */
export async function modern(
  url: string,
  method: string,
  params: Record<string, unknown>,
  capabilities: Record<string, unknown> = {},
): Promise<Answer> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': MODERN_VERSION,
    'mcp-method': method,
  };
  const name = params.name ?? params.taskId ?? params.uri;
  if (typeof name === 'string') headers['mcp-name'] = name;
  const _meta = { [MetaKey.protocolVersion]: MODERN_VERSION, [MetaKey.clientCapabilities]: capabilities };
  const res = await fetch(url, {
    method: 'POST',
    headers,
    body: JSON.stringify({ jsonrpc: '2.0', id: ++ids, method, params: { ...params, _meta } }),
  });
  return answerOf(res);
}

/** The text of a tool result's first content block. */
export function textOf(answer: Answer): string {
  const content = answer.result?.content as { text?: string }[] | undefined;
  return content?.[0]?.text ?? JSON.stringify(answer);
}

export interface LegacySession {
  readonly id: string;
  request(method: string, params?: Record<string, unknown>): Promise<Answer>;
}

/** A 2025-11-25 session on `url` (initialize + initialized). */
export async function legacySession(url: string): Promise<LegacySession> {
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  const init = await fetch(url, {
    method: 'POST',
    headers,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: ++ids,
      method: 'initialize',
      params: {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: { name: 'scale-out-test', version: '1' },
      },
    }),
  });
  await answerOf(init);
  const id = init.headers.get('mcp-session-id') ?? '';
  const sessionHeaders = { ...headers, 'mcp-session-id': id, 'mcp-protocol-version': '2025-11-25' };
  const done = await fetch(url, {
    method: 'POST',
    headers: sessionHeaders,
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  });
  await done.text();
  return {
    id,
    async request(method, params = {}) {
      const res = await fetch(url, {
        method: 'POST',
        headers: sessionHeaders,
        body: JSON.stringify({ jsonrpc: '2.0', id: ++ids, method, params }),
      });
      return answerOf(res);
    },
  };
}

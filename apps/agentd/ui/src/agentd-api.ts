/** agentd's operations and resources over any Connection, in either exposure (classic tools or Code Mode's execute). */
import { type Connection, type Json, PageError } from './connection.js';

export type Exposure = 'classic' | 'codemode';

export interface AgentdApi {
  read(uri: string): Promise<Json>;
  /** Calls operation `kind id` with `args`; resolves with its value, throws PageError('tool') with the refusal text. */
  op(kind: string, id: string, args: Json, follow?: Follow): Promise<Json>;
}

/** Streams a call's notifications (its run's progress and log lines) until it answers or is aborted. */
interface Follow {
  onNotification(notification: Json): void;
  signal: AbortSignal;
}

/** A streamed call asks for progress and info-level logs: that is how a run's lines travel. */
const FOLLOW_META: Json = {
  progressToken: 'agentd-page',
  'io.modelcontextprotocol/logLevel': 'info',
};

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function textOf(result: Json): string {
  const content = Array.isArray(result.content) ? (result.content as Json[]) : [];
  return content
    .map((c) => (typeof c.text === 'string' ? c.text : ''))
    .join('\n')
    .trim();
}

export function agentdApi(connection: Connection, exposure: () => Exposure): AgentdApi {
  return {
    async read(uri) {
      const result = await connection.request('resources/read', { uri });
      const first = (result.contents as Json[] | undefined)?.[0];
      if (typeof first?.text !== 'string') throw new PageError('rpc', `${uri}: no text content`);
      return JSON.parse(first.text) as Json;
    },
    async op(kind, id, args, follow) {
      const codemode = exposure() === 'codemode';
      const params: Json = codemode
        ? {
            name: 'execute',
            // The generic form (`agentd.command(id, args)`) needs no knowledge of the typed method names.
            arguments: {
              code: `return await agentd.${kind}(${JSON.stringify(id)}, ${JSON.stringify(args)});`,
            },
          }
        : { name: `${kind}_${id}`, arguments: args };
      if (follow !== undefined && connection.stream === undefined)
        throw new PageError('rpc', 'this connection cannot stream');
      const result =
        follow === undefined || connection.stream === undefined
          ? await connection.request('tools/call', params)
          : await connection.stream(
              'tools/call',
              { ...params, _meta: FOLLOW_META },
              follow.onNotification,
              follow.signal,
            );
      const structured = result.structuredContent as Json | undefined;
      const value = codemode ? structured?.result : structured;
      // A run that ended badly is an isError result that still carries its status: that is a value.
      if (isObject(value) && (result.isError !== true || typeof value.state === 'string')) return value;
      if (result.isError === true)
        throw new PageError('tool', textOf(result).replace(/^Error: /, '') || 'refused');
      const text = textOf(result);
      return (text === '' ? {} : JSON.parse(text)) as Json;
    },
  };
}

/** The run status a tool result carries (a spawn's or a status call's), in either exposure. */
export function runOfToolResult(result: Json): Json | undefined {
  const structured = result.structuredContent as Json | undefined;
  for (const candidate of [structured, structured?.result as Json | undefined]) {
    if (
      candidate !== undefined &&
      typeof candidate.handle === 'string' &&
      typeof candidate.runId === 'string'
    )
      return candidate;
  }
  return undefined;
}

/** Calls a self-MCP operation whichever way the daemon exposes it: a classic tool, else Code Mode `execute`. */
import { isJsonObject, type JsonObject } from '@agentd/rpc-frame';
import type { McpClient, RequestOptions } from './mcp-client.js';
import { fullerRun } from './truncation.js';

export interface OperationOutcome {
  isError: boolean;
  /** The operation's value (structured), or the error text. */
  value: unknown;
}

/** The JSON text of a resource or tool result, parsed when it is JSON. */
function firstText(result: JsonObject, field: 'contents' | 'content'): unknown {
  const items = result[field];
  const first = Array.isArray(items) ? items[0] : undefined;
  const text = isJsonObject(first) && typeof first.text === 'string' ? first.text : undefined;
  if (text === undefined) return result;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Reads one agent:// resource and parses its JSON body. */
export async function readJson(client: McpClient, uri: string): Promise<unknown> {
  return firstText(await client.request('resources/read', { uri }), 'contents');
}

export interface CallOptions extends RequestOptions {
  /** Extra per-request `_meta` (progressToken, logLevel). */
  meta?: JsonObject;
}

/** Tool names per connection: listed once, then every call picks classic or Code Mode from them. */
const toolNames = new WeakMap<McpClient, Promise<Set<string>>>();

export async function callOperation(
  client: McpClient,
  kind: 'query' | 'command',
  id: string,
  args: JsonObject,
  options: CallOptions = {},
): Promise<OperationOutcome> {
  let listed = toolNames.get(client);
  if (listed === undefined) {
    listed = client.request('tools/list').then((result) => {
      const tools = Array.isArray(result.tools) ? (result.tools as JsonObject[]) : [];
      return new Set(tools.map((t) => String(t.name)));
    });
    toolNames.set(client, listed);
  }
  const names = await listed;
  const { meta, ...requestOptions } = options;
  const withMeta = (params: JsonObject): JsonObject =>
    meta === undefined ? params : { ...params, _meta: meta };
  const classic = `${kind}_${id}`;
  if (names.has(classic)) {
    const result = await client.request(
      'tools/call',
      withMeta({ name: classic, arguments: args }),
      requestOptions,
    );
    return {
      isError: result.isError === true,
      value: result.structuredContent ?? firstText(result, 'content'),
    };
  }
  if (names.has('execute')) {
    const code = `return await agentd.${kind}(${JSON.stringify(id)}, ${JSON.stringify(args)});`;
    const result = await client.request(
      'tools/call',
      withMeta({ name: 'execute', arguments: { code } }),
      requestOptions,
    );
    const structured = result.structuredContent;
    if (result.isError === true || !isJsonObject(structured)) {
      const text = firstText(result, 'content');
      // Code Mode reports a thrown refusal as "Error: … (code)"; the prefix is the sandbox's, not ours.
      return { isError: true, value: typeof text === 'string' ? text.replace(/^Error: /, '') : text };
    }
    // Code Mode cut the script's value to its result limit: a run is read again by handle, whole.
    if (structured.truncated === true)
      return { isError: false, value: await fullerRun((uri) => readJson(client, uri), structured.result) };
    return { isError: false, value: structured.result };
  }
  // A restricted peer does not see operator operations: they do not exist for it.
  return {
    isError: true,
    value: `this connection cannot use ${kind} ${id} (it needs an operator connection: the unix socket, or HTTP with a bearer token)`,
  };
}

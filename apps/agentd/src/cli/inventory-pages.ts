/** The inventory is paged (bounded run summaries, `nextCursor`): the CLI reads it page by page. */
import { isJsonObject, type JsonObject } from '@agentd/rpc-frame';
import type { McpClient } from './mcp-client.js';
import { readJson } from './operation-call.js';

/** Enough for any tracked-run limit; a daemon whose cursor never ends cannot loop the CLI forever. */
const MAX_PAGES = 1_000;

/** Each page of agent://inventory in turn; a read that fails throws (a WireError for restricted peers). */
export async function* inventoryPages(client: McpClient): AsyncGenerator<JsonObject> {
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const uri =
      cursor === undefined ? 'agent://inventory' : `agent://inventory?cursor=${encodeURIComponent(cursor)}`;
    const body = await readJson(client, uri);
    if (!isJsonObject(body)) return;
    yield body;
    if (typeof body.nextCursor !== 'string' || body.nextCursor === cursor) return;
    cursor = body.nextCursor;
  }
}

/** Every page's runs, and the first page's other fields (snapshot, listeners, fleet). */
export async function wholeInventory(client: McpClient): Promise<JsonObject> {
  let first: JsonObject | undefined;
  const subagents: unknown[] = [];
  for await (const page of inventoryPages(client)) {
    first ??= page;
    if (Array.isArray(page.subagents)) subagents.push(...page.subagents);
  }
  const { nextCursor: _cursor, ...rest } = first ?? {};
  return { ...rest, subagents: subagents as JsonObject[] };
}

/**
 * A run named on the command line: its handle (`sa_…`, the capability) or its run id (`run_…`,
 * what spawn prints and logs show). A run id is turned into the handle through the inventory,
 * which only an operator connection may read: the handle stays the capability it is.
 */
import { isJsonObject, WireError } from '@agentd/rpc-frame';
import { inventoryPages } from './inventory-pages.js';
import type { McpClient } from './mcp-client.js';
import { callOperation, readJson } from './operation-call.js';

const isRunId = (ref: string): boolean => ref.startsWith('run_');

/** The handle for `ref`, or the reason it cannot be found (printed as a refusal). */
export async function handleOf(
  client: McpClient,
  ref: string,
): Promise<{ handle: string } | { refusal: string }> {
  if (!isRunId(ref)) return { handle: ref };
  let inventory: unknown;
  try {
    // Pages come oldest first; the run is looked for page by page, the first page kept for the fleet.
    for await (const page of inventoryPages(client)) {
      inventory ??= page;
      const local = Array.isArray(page.subagents) ? page.subagents : [];
      const mine = local.find((s) => isJsonObject(s) && s.runId === ref);
      if (isJsonObject(mine)) return { handle: String(mine.handle) };
    }
  } catch (error) {
    if (error instanceof WireError)
      return {
        refusal: `finding run ${ref} by its id needs an operator connection (the unix socket, or HTTP with a bearer token); give its handle instead`,
      };
    throw error;
  }
  // In a fleet the other replicas' live runs are listed by handle only: ask for each one's id.
  const fleet = isJsonObject(inventory) && isJsonObject(inventory.fleet) ? inventory.fleet : undefined;
  const instances = Array.isArray(fleet?.instances) ? fleet.instances.filter(isJsonObject) : [];
  for (const instance of instances.filter((i) => i.self !== true)) {
    for (const handle of Array.isArray(instance.runs) ? instance.runs : []) {
      const { isError, value } = await callOperation(client, 'query', 'subagent.status', {
        handle: String(handle),
      });
      if (!isError && isJsonObject(value) && value.runId === ref) return { handle: String(handle) };
    }
  }
  const stored = await storedHandle(client, ref);
  if (stored !== undefined) return { handle: stored };
  return { refusal: `unknown run ${ref}: it never existed, or it finished and was evicted (unknown_handle)` };
}

/** A run the daemon no longer tracks but keeps in its history (ended, or lost in a restart). */
async function storedHandle(client: McpClient, runId: string): Promise<string | undefined> {
  const page = await readJson(client, `agent://runs?text=${encodeURIComponent(runId)}`).catch(
    () => undefined, // a daemon that keeps no history
  );
  const runs = isJsonObject(page) && Array.isArray(page.runs) ? page.runs : [];
  const found = runs.find((r) => isJsonObject(r) && r.runId === runId);
  return isJsonObject(found) && typeof found.handle === 'string' ? found.handle : undefined;
}

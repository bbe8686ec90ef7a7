/** `agentd runs`: the live runs (and the fleet's) from the inventory; `--all` reads the stored history. */
import { isJsonObject, WireError } from '@agentd/rpc-frame';
import { runsText } from '../format.js';
import { wholeInventory } from '../inventory-pages.js';
import { EXIT } from '../output.js';
import type { CommandHandler } from './command-context.js';
import { historyRuns } from './history.js';

export const runs: CommandHandler<'runs'> = async (command, context) => {
  if (command.all === true) return historyRuns(command, context);
  const { client, style, show, refused } = context;
  let inventory: unknown;
  try {
    inventory = await wholeInventory(client);
  } catch (error) {
    if (error instanceof WireError)
      return refused(
        'listing runs needs an operator connection (the unix socket, or HTTP with a bearer token)',
      );
    throw error;
  }
  const subagents = isJsonObject(inventory) && Array.isArray(inventory.subagents) ? inventory.subagents : [];
  const fleet = isJsonObject(inventory) ? inventory.fleet : undefined;
  show(subagents, (v) => runsText(v as unknown[], fleet, style.colourOut));
  return EXIT.ok;
};

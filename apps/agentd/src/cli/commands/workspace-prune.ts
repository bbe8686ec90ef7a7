/**
 * `agentd workspace prune`: the daemon prunes its state directory (operation `workspace.prune`,
 * it knows which runs are live); with `--state-dir DIR`, or when no daemon answers on the unix
 * socket, this process prunes the directory itself. Either way a workspace whose daemon is alive
 * and has not ended its run is left alone (workspace/workspace.ts `pruneWorkspaces`).
 */
import { isJsonObject, LocalError } from '@agentd/rpc-frame';
import { defaultStateDir } from '../../history/history-config.js';
import { pruneWorkspaces } from '../../workspace/workspace.js';
import { connectTo, type Endpoint, endpointOf } from '../connect.js';
import { pretty } from '../format.js';
import { callOperation } from '../operation-call.js';
import { EXIT, refused } from '../output.js';
import { pruneText } from '../workspace-text.js';
import type { ClientContext, CommandOf } from './command-context.js';

type PruneCommand = CommandOf<'workspace-prune'>;

/** The state directory pruned without a daemon: `--state-dir`, else AGENTD_STATE_DIR, else the default. */
function localStateDir(command: PruneCommand, env: NodeJS.ProcessEnv): string {
  return command.stateDir ?? (env.AGENTD_STATE_DIR || defaultStateDir(env));
}

async function pruneLocally(command: PruneCommand, context: ClientContext, why: string): Promise<number> {
  const dir = localStateDir(command, context.env);
  const report = { ...(await pruneWorkspaces({ stateDir: dir })) };
  context.io.out(command.json ? pretty(report) : pruneText(report, `${why} ${dir}`));
  return EXIT.ok;
}

/** The daemon's answer; undefined when no daemon listens on the unix socket. */
async function pruneByDaemon(
  endpoint: Endpoint,
  version: string,
): Promise<{ isError: boolean; value: unknown } | undefined> {
  let client: Awaited<ReturnType<typeof connectTo>> | undefined;
  try {
    client = await connectTo(endpoint, version);
    return await callOperation(client, 'command', 'workspace.prune', {});
  } catch (error) {
    if (endpoint.kind === 'unix' && error instanceof LocalError && error.code === 'daemon_unreachable')
      return undefined;
    throw error;
  } finally {
    client?.close();
  }
}

export async function workspacePrune(command: PruneCommand, context: ClientContext): Promise<number> {
  if (command.stateDir !== undefined) return pruneLocally(command, context, 'in');
  const endpoint = endpointOf(command.connection, context.env, context.cwd);
  const answer = await pruneByDaemon(endpoint, context.version);
  if (answer === undefined) return pruneLocally(command, context, 'no daemon running: pruned');
  if (answer.isError || !isJsonObject(answer.value)) return refused(context.io, command.json, answer.value);
  context.io.out(
    command.json ? pretty(answer.value) : pruneText(answer.value, "the daemon's state directory"),
  );
  return EXIT.ok;
}

/**
 * The daemon's run store at start, unless history is off: the file store in the state directory,
 * or for a fleet (`cluster`) the same store in the fleet's Redis. Runs a previous process left
 * live are marked `lost` before anything serves.
 */
import { LocalError, type Logger } from '@agentd/rpc-frame';
import { clusterKeys } from '../cluster/cluster-keys.js';
import type { ClusterLink } from '../cluster/cluster-link.js';
import { openFleetRunStore } from '../cluster/fleet-run-store.js';
import type { AgentdConfig } from '../config/config-schema.js';
import { defaultStateDir } from './history-config.js';
import type { RunStore } from './history-types.js';
import { openRunStore } from './run-store-file.js';

export interface OpenHistoryOptions {
  env: NodeJS.ProcessEnv;
  logger: Logger;
  /**
   * `agentd stdio`, launched by a client: a daemon already keeping this state directory is no
   * reason to refuse the client, so this one runs without history instead.
   */
  stdio: boolean;
  /** The fleet's Redis, when `cluster` is configured: the history is kept there. */
  link?: ClusterLink;
}

/** The state directory: `stateDir`, else `$XDG_STATE_HOME/agentd`, else `~/.local/state/agentd`. */
function stateDirOf(config: Pick<AgentdConfig, 'stateDir'>, env: NodeJS.ProcessEnv): string {
  return config.stateDir ?? defaultStateDir(env);
}

async function openStore(config: AgentdConfig, options: OpenHistoryOptions): Promise<RunStore> {
  const { logger, link } = options;
  if (link !== undefined && config.cluster !== undefined) {
    return openFleetRunStore({
      redis: link.connection,
      keys: clusterKeys(config.cluster.keyPrefix),
      instanceId: link.instanceId,
      leaseTtlMs: config.cluster.leaseTtlMs,
      retention: config.history,
      logger,
    });
  }
  return openRunStore({ dir: stateDirOf(config, options.env), retention: config.history, logger });
}

/** Throws `store_locked` (another agentd writes this directory; its pid is in the message). */
export async function openHistory(
  config: AgentdConfig,
  options: OpenHistoryOptions,
): Promise<RunStore | undefined> {
  const { logger } = options;
  if (config.history.enabled === false) return undefined;
  // A fleet keeps its history in its Redis, never in one replica's state directory.
  if (config.cluster !== undefined && options.link === undefined) return undefined;
  let store: RunStore;
  try {
    store = await openStore(config, options);
  } catch (error) {
    if (!(options.stdio && error instanceof LocalError && error.code === 'store_locked')) throw error;
    logger.warn('history is not being kept by this agentd stdio', {
      component: 'history',
      error: error.message,
    });
    return undefined;
  }
  const lost = await store.markLiveRunsLost();
  const info = store.info();
  logger.info('run history', {
    component: 'history',
    dir: info.dir,
    runs: info.runs,
    lost: lost.map((record) => record.runId),
  });
  return store;
}

/**
 * The daemon's run store at start: opened unless history is off or the fleet keeps runs in Redis,
 * with the runs a previous process left live marked `lost` before anything serves.
 */
import { LocalError, type Logger } from '@agentd/rpc-frame';
import type { AgentdConfig } from '../config/config-schema.js';
import { defaultStateDir } from './history-config.js';
import { openRunStore, type RunStore } from './run-store-file.js';

export interface OpenHistoryOptions {
  env: NodeJS.ProcessEnv;
  logger: Logger;
  /**
   * `agentd stdio`, launched by a client: a daemon already keeping this state directory is no
   * reason to refuse the client, so this one runs without history instead.
   */
  stdio: boolean;
}

/** The state directory: `stateDir`, else `$XDG_STATE_HOME/agentd`, else `~/.local/state/agentd`. */
function stateDirOf(config: Pick<AgentdConfig, 'stateDir'>, env: NodeJS.ProcessEnv): string {
  return config.stateDir ?? defaultStateDir(env);
}

/** Throws `store_locked` (another agentd writes this directory; its pid is in the message). */
export async function openHistory(
  config: AgentdConfig,
  options: OpenHistoryOptions,
): Promise<RunStore | undefined> {
  const { logger } = options;
  if (config.history.enabled === false) return undefined;
  if (config.cluster !== undefined) {
    logger.info('run history is kept by the fleet (Redis), not in the state directory', {
      component: 'history',
    });
    return undefined;
  }
  const dir = stateDirOf(config, options.env);
  let store: RunStore;
  try {
    store = await openRunStore({ dir, retention: config.history, logger });
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

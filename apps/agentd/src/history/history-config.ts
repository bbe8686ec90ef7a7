/** The `history` config block (how much of the run store is kept) and where the state directory is. */
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { JsonObject } from '@agentd/rpc-frame';

/** Bounds of the run store; the oldest finished runs go first when one is passed. */
export interface HistoryConfig {
  /** False: no run store at all (runs live only in this process, as before). Default true. */
  enabled?: boolean;
  /** Finished runs kept. */
  maxRuns: number;
  /** A finished run is removed this many days after it ended. */
  maxAgeDays: number;
  /** Bytes of the store's files (records and event logs) before the oldest runs go. */
  maxBytes: number;
}

export const HISTORY_DEFAULTS = {
  maxRuns: 10_000,
  maxAgeDays: 30,
  maxBytes: 1024 ** 3,
} as const satisfies HistoryConfig;

export const HISTORY_SCHEMA: JsonObject = {
  type: 'object',
  additionalProperties: false,
  description:
    'How much run history is kept under the state directory (records and whole event logs); the oldest finished runs are removed first.',
  properties: {
    enabled: {
      type: 'boolean',
      description:
        'Keep run history in the state directory (default true). False: runs live only in this process, as before.',
    },
    maxRuns: { type: 'integer', minimum: 1, description: 'Finished runs kept (default 10000).' },
    maxAgeDays: {
      type: 'number',
      exclusiveMinimum: 0,
      description: 'Days a finished run is kept after it ended (default 30).',
    },
    maxBytes: {
      type: 'integer',
      minimum: 1_048_576,
      description: 'Bytes of history on disk before the oldest runs are removed (default 1073741824, 1 GiB).',
    },
  },
};

/** `$XDG_STATE_HOME/agentd`, else `~/.local/state/agentd`. */
export function defaultStateDir(env: NodeJS.ProcessEnv = process.env): string {
  const xdg = env.XDG_STATE_HOME;
  // The XDG spec: a relative path is invalid and must be ignored.
  if (xdg?.startsWith('/')) return join(xdg, 'agentd');
  return join(homedir(), '.local', 'state', 'agentd');
}

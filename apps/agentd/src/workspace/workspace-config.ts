/** A profile's `workspace` setting: where each run of the profile works. */
import type { JsonObject } from '@agentd/rpc-frame';

export interface WorkspaceConfig {
  /**
   * `worktree`: a git worktree per run on a new branch `agentd/<runId>` from the repository's HEAD.
   * `copy`: a copy of a directory per run (for work outside git). `in-place`: the profile's own
   * directory, shared by its runs (the default).
   */
  mode: 'worktree' | 'copy' | 'in-place';
  /** The repository (worktree) or directory (copy), relative to the profile's `cwd`. Default `.`. */
  repo: string;
  /** When a run ends: keep its workspace `always`, `never`, or only when it `changed` something. */
  keep: 'changed' | 'always' | 'never';
  /** Live workspaces of one repository (or copied directory) at once; a spawn past it is refused. */
  maxLive: number;
}

export const WORKSPACE_DEFAULTS = {
  mode: 'in-place',
  repo: '.',
  keep: 'changed',
  maxLive: 16,
} as const satisfies WorkspaceConfig;

/** The JSON schema of a profile's `workspace` block (for the config schema). */
export const WORKSPACE_SCHEMA: JsonObject = {
  type: 'object',
  additionalProperties: false,
  description:
    "Where each run works: 'worktree' (a git worktree and branch agentd/<runId> per run, the diff in its result), 'copy' (a copy of a directory per run) or 'in-place' (the profile's cwd, the default).",
  properties: {
    mode: { enum: ['worktree', 'copy', 'in-place'], description: "Default 'in-place'." },
    repo: {
      type: 'string',
      minLength: 1,
      description:
        "The git repository (worktree) or directory (copy), relative to the profile's cwd. Default '.'.",
    },
    keep: {
      enum: ['changed', 'always', 'never'],
      description:
        'When a run ends, keep its workspace only if it changed something (default), always, or never.',
    },
    maxLive: {
      type: 'integer',
      minimum: 1,
      maximum: 1000,
      description: 'Live workspaces of one repository at once (default 16); a spawn past it is refused.',
    },
  },
};

/** The setting with its defaults filled (the config schema has already checked its shape). */
export function workspaceConfig(value: Partial<WorkspaceConfig> | undefined): WorkspaceConfig {
  return { ...WORKSPACE_DEFAULTS, ...value };
}

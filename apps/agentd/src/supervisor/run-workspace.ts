/**
 * Where a run works: the profile's `cwd` (or a subdirectory a spawn picked), or a workspace of its
 * own (src/workspace/) made before the agent starts and summarised once the agent is gone.
 */
import { LocalError } from '@agentd/rpc-frame';
import type { AgentdErrorCode } from '../local-errors.js';
import { type PreparedWorkspace, prepareWorkspace } from '../workspace/workspace.js';
import type { AgentProfile, RunWorkspace, WorkspaceInUse } from './types.js';

/** The profile the run starts with (its `cwd` where the agent starts) and its workspace, if any. */
export interface RunPlace {
  profile: AgentProfile;
  workspace?: PreparedWorkspace;
}

/** A spawn's `cwd` argument, checked; undefined when it names none. */
export function requestedDir(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value.length === 0 || value.includes('\0'))
    throw new LocalError<AgentdErrorCode>('invalid_request', 'cwd must be a non-empty path');
  return value;
}

/** True when the run needs preparing: a workspace of its own, or a directory the spawn picked. */
export function needsPlace(profile: Readonly<AgentProfile>, dir: string | undefined): boolean {
  return dir !== undefined || (profile.workspace?.mode ?? 'in-place') !== 'in-place';
}

/** Makes the run's workspace (or checks its directory); refusals are plain LocalErrors. */
export async function placeRun(
  profile: Readonly<AgentProfile>,
  runId: string,
  dir: string | undefined,
  stateDir: string,
): Promise<RunPlace> {
  const workspace = await prepareWorkspace({
    workspace: profile.workspace,
    cwd: profile.cwd ?? process.cwd(),
    runId,
    stateDir,
    ...(dir === undefined ? {} : { subdir: dir }),
  });
  const placed: AgentProfile = { ...profile, cwd: workspace.cwd };
  return workspace.mode === 'in-place' ? { profile: placed } : { profile: placed, workspace };
}

/** The status of a workspace the run is working in. */
export function liveWorkspace(workspace: PreparedWorkspace): WorkspaceInUse {
  return {
    mode: workspace.mode === 'copy' ? 'copy' : 'worktree',
    state: 'live',
    path: workspace.path ?? workspace.cwd,
    cwd: workspace.cwd,
    ...(workspace.branch === undefined ? {} : { branch: workspace.branch }),
  };
}

/** Summarises the workspace and applies its `keep` (once); a failure is reported, never thrown. */
export async function finishedWorkspace(workspace: PreparedWorkspace): Promise<RunWorkspace> {
  try {
    const summary = await workspace.finish();
    if (summary !== undefined) return { ...summary, state: summary.path === undefined ? 'removed' : 'kept' };
    throw new Error('the workspace gave no summary');
  } catch (error) {
    return {
      ...liveWorkspace(workspace),
      state: 'failed',
      error: {
        code: error instanceof LocalError ? String(error.code) : 'workspace_failed',
        message: error instanceof Error ? error.message : String(error),
      },
    };
  }
}

/** Running git for workspaces, and turning its failures and the file system's into plain LocalErrors. */
import { execFile } from 'node:child_process';
import { statfs } from 'node:fs/promises';
import { LocalError } from '@agentd/rpc-frame';
import type { AgentdErrorCode } from '../local-errors.js';

export class GitFailure extends Error {
  override name = 'GitFailure';
  constructor(
    message: string,
    readonly stderr: string,
    readonly exitCode: number | undefined,
  ) {
    super(message);
  }
}

/** The daemon's environment without what would point git elsewhere than `-C` says (agentd started from a hook). */
function gitEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, GIT_TERMINAL_PROMPT: '0' };
  for (const key of ['GIT_DIR', 'GIT_WORK_TREE', 'GIT_INDEX_FILE', 'GIT_COMMON_DIR', 'GIT_OBJECT_DIRECTORY'])
    delete env[key];
  return env;
}

/** Runs `git args` in `cwd`; resolves with stdout. `okCodes`: exit codes that are answers, not failures. */
export function git(cwd: string, args: readonly string[], okCodes: readonly number[] = [0]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      'git',
      ['-C', cwd, ...args],
      { maxBuffer: 64 * 1024 * 1024, env: gitEnv() },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : undefined;
        if (code !== undefined && okCodes.includes(code)) resolve(stdout);
        else if ((error as NodeJS.ErrnoException | null)?.code === 'ENOENT') {
          reject(new GitFailure('git is not installed (or not on PATH)', '', undefined));
        } else
          reject(
            new GitFailure(`git ${args[0] ?? ''} failed: ${stderr.trim() || String(error)}`, stderr, code),
          );
      },
    );
  });
}

export function workspaceError(
  code: AgentdErrorCode,
  message: string,
  cause?: unknown,
): LocalError<AgentdErrorCode> {
  return new LocalError<AgentdErrorCode>(code, message, cause === undefined ? undefined : { cause });
}

/** A failure as a LocalError: a full disk is `disk_full` whoever saw it; the rest `workspace_failed`. */
export function asWorkspaceError(error: unknown, doing: string): LocalError<AgentdErrorCode> {
  if (error instanceof LocalError) return error as LocalError<AgentdErrorCode>;
  const text = error instanceof GitFailure ? error.stderr : String((error as Error).message ?? error);
  if ((error as NodeJS.ErrnoException).code === 'ENOSPC' || /No space left on device|ENOSPC/i.test(text)) {
    return workspaceError('disk_full', `${doing}: the disk is full`, error);
  }
  return workspaceError('workspace_failed', `${doing}: ${(error as Error).message ?? String(error)}`, error);
}

/** Less than 1 MiB left for this user on the file system of `path` (false when that cannot be told). */
export async function nearlyFull(path: string): Promise<boolean> {
  try {
    const fs = await statfs(path);
    return fs.bavail * fs.bsize < 1024 * 1024;
  } catch {
    return false;
  }
}

/** Runs a command to completion and collects its output; the environment is scrubbed of npm's. */
import { spawn } from 'node:child_process';

export interface CommandResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * The outer `npm test` exports npm_config_* (its own prefix among them) and NODE_OPTIONS; a nested
 * npm or node must not inherit them, or it would act on the workspace instead of the scratch dir.
 */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (/^npm_/i.test(key) || key === 'NODE_OPTIONS' || key === 'INIT_CWD') continue;
    env[key] = value;
  }
  return { ...env, ...extra };
}

export function runCommand(
  command: string,
  args: readonly string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv },
): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env ?? cleanEnv(), stdio: 'pipe' });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (text: string) => {
      stdout += text;
    });
    child.stderr.setEncoding('utf8').on('data', (text: string) => {
      stderr += text;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Like runCommand, but a non-zero exit is an error carrying the command's output. */
export async function runChecked(
  command: string,
  args: readonly string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv },
): Promise<string> {
  const result = await runCommand(command, args, options);
  if (result.code !== 0) {
    throw new Error(
      `${command} ${args.join(' ')} (in ${options.cwd}) exited ${result.code}\n${result.stdout}\n${result.stderr}`,
    );
  }
  return result.stdout;
}

/** Where agentd's socket lives by default: the user's runtime dir, else a private dir in the temp dir. */
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export function defaultRuntimeDir(env: NodeJS.ProcessEnv = process.env): string {
  const xdg = env.XDG_RUNTIME_DIR;
  if (xdg !== undefined && xdg !== '') return join(xdg, 'agentd');
  const uid = typeof process.getuid === 'function' ? process.getuid() : 'user';
  return join(tmpdir(), `agentd-${uid}`);
}

export function defaultSocketPath(env: NodeJS.ProcessEnv = process.env): string {
  return join(defaultRuntimeDir(env), 'agentd.sock');
}

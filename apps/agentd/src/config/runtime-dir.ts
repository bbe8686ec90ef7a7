/** Where agentd's socket lives by default: the user's runtime dir, else a private dir in the temp dir. */
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';

export function defaultRuntimeDir(env: NodeJS.ProcessEnv = process.env): string {
  const xdg = env.XDG_RUNTIME_DIR;
  if (xdg !== undefined && xdg !== '') return join(xdg, 'agentd');
  const uid = typeof process.getuid === 'function' ? process.getuid() : 'user';
  return join(tmpdir(), `agentd-${uid}`);
}

/**
 * The default `unix:` target. Node on Windows listens on named pipes, not socket files, so there
 * it is a per-user pipe name.
 */
export function defaultSocketPath(
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
): string {
  if (platform === 'win32') return `\\\\.\\pipe\\agentd-${pipeSafe(env.USERNAME ?? userInfo().username)}`;
  return join(defaultRuntimeDir(env), 'agentd.sock');
}

function pipeSafe(name: string): string {
  return name.replace(/[^A-Za-z0-9._-]/g, '_') || 'user';
}

/**
 * The bridge socket beside a daemon socket (`agentd.sock` → `agentd.stdio.sock`): `agentd stdio`
 * joins the daemon through it, and its peers get the `stdio` origin, the trust of a host's tool server.
 */
export function bridgeSocketPath(socketPath: string): string {
  return socketPath.endsWith('.sock') ? `${socketPath.slice(0, -5)}.stdio.sock` : `${socketPath}.stdio`;
}

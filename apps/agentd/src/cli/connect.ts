/** Finds and opens the CLI's connection to the daemon: --url, --socket, AGENTD_SOCKET, the config file, the default. */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { LocalError } from '@agentd/rpc-frame';
import { ConfigError, formatIssue } from '../config/config-error.js';
import { configPathOf, resolveConfig } from '../config/resolve-config.js';
import { defaultSocketPath } from '../config/runtime-dir.js';
import type { ServeTarget } from '../config/serve-target.js';
import { ENV_SOCKET, ENV_TOKEN } from '../config/settings.js';
import type { AgentdErrorCode } from '../local-errors.js';
import { HttpClient } from './http-client.js';
import type { McpClient } from './mcp-client.js';
import type { Connection } from './parse-args.js';
import { SocketClient } from './socket-client.js';

export type Endpoint = { kind: 'unix'; path: string } | { kind: 'http'; url: string; token?: string };

function readToken(file: string, cwd: string): string {
  try {
    return readFileSync(resolve(cwd, file), 'utf8').trim();
  } catch (error) {
    throw new LocalError<AgentdErrorCode>(
      'no_endpoint',
      `cannot read the token file ${file}: ${(error as Error).message}`,
      { cause: error },
    );
  }
}

/**
 * The config as the daemon resolves it, only to find the daemon: a bad file is one line naming the
 * file and its first problem, not the daemon's full report (the client may be talking to a daemon
 * that already rejected that very edit).
 */
function configForClient(configPath: string, env: NodeJS.ProcessEnv, cwd: string) {
  try {
    return resolveConfig({ configPath, env, flags: new Map(), serveDefaults: true, cwd });
  } catch (error) {
    const first = error instanceof ConfigError ? error.issues[0] : undefined;
    if (first === undefined) throw error;
    const more = (error as ConfigError).issues.length - 1;
    throw new ConfigError(
      (error as ConfigError).issues,
      `cannot find the daemon from ${configPath}: ${first.source === `file ${configPath}` ? `${first.path || '(root)'}: ${first.message}` : formatIssue(first)}${more > 0 ? ` (and ${more} more)` : ''}; fix it (agentd config check ${configPath}) or give --socket or --url`,
    );
  }
}

/**
 * Where a client command goes. A config file is resolved exactly as the daemon resolves it (file,
 * then AGENTD_* over it), so the CLI finds the socket the daemon listens on; a bad file is a
 * ConfigError (exit 2).
 */
export function endpointOf(connection: Connection, env: NodeJS.ProcessEnv, cwd: string): Endpoint {
  const token =
    connection.tokenFile !== undefined ? readToken(connection.tokenFile, cwd) : env[ENV_TOKEN] || undefined;
  const http = (url: string, fallback?: string): Endpoint => {
    const chosen = token ?? fallback;
    return chosen === undefined ? { kind: 'http', url } : { kind: 'http', url, token: chosen };
  };
  if (connection.url !== undefined) return http(connection.url);
  if (connection.socket !== undefined) return { kind: 'unix', path: resolve(cwd, connection.socket) };
  if (env[ENV_SOCKET]) return { kind: 'unix', path: env[ENV_SOCKET] };
  const configPath = configPathOf({
    env,
    cwd,
    ...(connection.configPath === undefined ? {} : { configPath: connection.configPath }),
  });
  if (configPath !== undefined) {
    const { targets, config } = configForClient(configPath, env, cwd);
    const unix = targets.find((t): t is Extract<ServeTarget, { kind: 'unix' }> => t.kind === 'unix');
    if (unix !== undefined) return { kind: 'unix', path: unix.path };
    const web = targets.find(
      (t): t is Extract<ServeTarget, { kind: 'http' | 'https' }> => t.kind === 'http' || t.kind === 'https',
    );
    if (web !== undefined) {
      if (web.port === 0)
        throw new LocalError<AgentdErrorCode>(
          'no_endpoint',
          `${configPath}: the daemon's HTTP port is chosen at start (port 0); give --url`,
        );
      const host = web.host.includes(':') ? `[${web.host}]` : web.host === '0.0.0.0' ? '127.0.0.1' : web.host;
      return http(`${web.kind}://${host}:${web.port}${web.path}`, config.auth.bearerTokens[0]?.token);
    }
    throw new LocalError<AgentdErrorCode>(
      'no_endpoint',
      `${configPath} serves neither a unix socket nor HTTP; give --socket or --url`,
    );
  }
  return { kind: 'unix', path: defaultSocketPath(env) };
}

export async function connectTo(endpoint: Endpoint, version: string): Promise<McpClient> {
  if (endpoint.kind === 'unix') return SocketClient.connect(endpoint.path, version);
  return new HttpClient(endpoint.url, endpoint.token, version);
}

/**
 * Real redis-server and nginx for the cluster end-to-end tests, on free loopback ports in temp
 * dirs. Missing binaries fail the run under CI=true; elsewhere the tests skip with one loud line.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { accessSync, constants, mkdtempSync, writeFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';

function which(name: string, extra: string[]): string | undefined {
  const dirs = [...(process.env.PATH ?? '').split(delimiter), ...extra];
  for (const dir of dirs) {
    const path = join(dir, name);
    try {
      accessSync(path, constants.X_OK);
      return path;
    } catch {
      // next
    }
  }
  return undefined;
}

export const REDIS_SERVER = which('redis-server', ['/usr/bin', '/usr/local/bin']);
export const NGINX = which('nginx', ['/usr/sbin', '/usr/local/sbin']);

/** True when the cluster tests can run; throws under CI=true when a binary is missing. */
export function clusterPartsAvailable(): boolean {
  if (REDIS_SERVER !== undefined && NGINX !== undefined) return true;
  const missing = [REDIS_SERVER === undefined ? 'redis-server' : '', NGINX === undefined ? 'nginx' : '']
    .filter((m) => m !== '')
    .join(' and ');
  if (process.env.CI === 'true')
    throw new Error(
      `${missing} not found: CI must run the agentd cluster tests (apt-get install -y redis-server nginx-light)`,
    );
  console.warn(
    `SKIPPED: agentd cluster tests, ${missing} not found (apt-get install -y redis-server nginx-light)`,
  );
  return false;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address !== null ? address.port : 0));
    });
  });
}

function waitForPort(port: number, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  return new Promise((resolve, reject) => {
    const attempt = () => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve();
      });
      socket.once('error', () => {
        socket.destroy();
        if (Date.now() > deadline) reject(new Error(`nothing listens on 127.0.0.1:${port}`));
        else setTimeout(attempt, 50);
      });
    };
    attempt();
  });
}

function stopProcess(proc: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    proc.once('exit', () => resolve());
    proc.kill(signal);
  });
}

export interface RedisServer {
  readonly port: number;
  readonly url: string;
  /** Stops redis-server and starts a fresh one (no persistence) on the same port. */
  restart(options?: { downMs?: number }): Promise<void>;
  stop(): Promise<void>;
}

export async function startRedis(): Promise<RedisServer> {
  const dir = mkdtempSync(join(tmpdir(), 'agentd-redis-'));
  const port = await freePort();
  let proc: ChildProcess;
  const launch = async () => {
    proc = spawn(
      REDIS_SERVER as string,
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir],
      { stdio: 'ignore' },
    );
    await waitForPort(port);
  };
  await launch();
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    async restart({ downMs = 300 } = {}) {
      await stopProcess(proc);
      await new Promise((resolve) => setTimeout(resolve, downMs));
      await launch();
    },
    stop: () => stopProcess(proc),
  };
}

export interface Nginx {
  readonly url: string;
  stop(): Promise<void>;
}

/**
 * Round robin over the replicas. The official SDK client speaks the 2025-11-25 era, whose session
 * lives on the replica that minted it; another replica answers 404 for it, and nginx then tries
 * the next one (404 is not counted as a failure), so a session reaches its replica.
 */
export async function startNginx(upstreams: readonly number[]): Promise<Nginx> {
  const dir = mkdtempSync(join(tmpdir(), 'agentd-nginx-'));
  const port = await freePort();
  const conf = join(dir, 'nginx.conf');
  writeFileSync(
    conf,
    `daemon off;
master_process off;
worker_processes 1;
pid ${join(dir, 'nginx.pid')};
error_log ${join(dir, 'error.log')} warn;
events { worker_connections 256; }
http {
  access_log off;
  client_body_temp_path ${join(dir, 'body')};
  proxy_temp_path ${join(dir, 'proxy')};
  fastcgi_temp_path ${join(dir, 'fastcgi')};
  uwsgi_temp_path ${join(dir, 'uwsgi')};
  scgi_temp_path ${join(dir, 'scgi')};
  upstream agentd {
${upstreams.map((p) => `    server 127.0.0.1:${p} max_fails=1 fail_timeout=2s;`).join('\n')}
  }
  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass http://agentd;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $http_host;
      proxy_buffering off;
      proxy_read_timeout 300s;
      proxy_next_upstream error timeout http_404 non_idempotent;
    }
  }
}
`,
  );
  const proc = spawn(NGINX as string, ['-e', join(dir, 'error.log'), '-p', dir, '-c', conf], {
    stdio: 'ignore',
  });
  await waitForPort(port);
  return { url: `http://127.0.0.1:${port}/mcp`, stop: () => stopProcess(proc) };
}

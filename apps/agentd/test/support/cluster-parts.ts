/**
 * The balancer of the cluster tests: a real nginx (from @agentd/cluster-harness's binaries) in
 * front of agentd replicas. The official SDK client speaks the 2025-11-25 era, whose session lives
 * on the replica that minted it; another replica answers 404 for it, and nginx then tries the next
 * one (404 is never counted as a failure), so a session reaches its replica.
 */

import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, requireBinary, waitForPort } from '@agentd/cluster-harness';

export interface Balancer {
  /** `http://127.0.0.1:<port>/mcp` */
  readonly url: string;
  close(): Promise<void>;
}

export async function startBalancer(replicaPorts: readonly number[]): Promise<Balancer> {
  const prefix = await mkdtemp(join(tmpdir(), 'agentd-nginx-'));
  const port = await freePort();
  const file = join(prefix, 'nginx.conf');
  await writeFile(
    file,
    `daemon off;
worker_processes 1;
pid ${prefix}/nginx.pid;
error_log ${prefix}/error.log warn;
events { worker_connections 256; }
http {
  access_log off;
  client_body_temp_path ${prefix}/client_body;
  proxy_temp_path ${prefix}/proxy;
  fastcgi_temp_path ${prefix}/fastcgi;
  uwsgi_temp_path ${prefix}/uwsgi;
  scgi_temp_path ${prefix}/scgi;
  upstream replicas {
${replicaPorts.map((p) => `    server 127.0.0.1:${p} max_fails=1 fail_timeout=2s;`).join('\n')}
  }
  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass http://replicas;
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
  const proc = spawn(requireBinary('nginx'), ['-p', prefix, '-c', file, '-e', join(prefix, 'error.log')], {
    stdio: 'ignore',
  });
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  await waitForPort(port, { alive: () => proc.exitCode === null, what: 'nginx' });
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    async close() {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGTERM');
      await exited;
      await rm(prefix, { recursive: true, force: true });
    },
  };
}

/** The nginx.conf the harness runs (also the one docs/scale-out.md shows): replicas, keepalive upstreams, SSE-safe proxying, optional sticky sessions. */

export interface NginxConfigOptions {
  /** Listen port on 127.0.0.1. */
  readonly port: number;
  /** Absolute dir for the pid, logs and temp files. */
  readonly prefix: string;
  /** Replica addresses, `host:port`. */
  readonly replicas: readonly string[];
  /**
   * Sticky legacy sessions: `sessionPrefixes[i]` routes requests whose `Mcp-Session-Id` starts with
   * it to `replicas[i]`, the other replicas as `backup` (so a dead replica's sessions reach a live
   * one, which answers 404 and the client re-initializes). Requests without the header, or with an
   * unknown prefix, go round-robin over all replicas.
   */
  readonly sessionPrefixes?: readonly string[];
  /** Read timeout for streams (SSE), seconds. Default 3600. */
  readonly readTimeoutSeconds?: number;
}

function sessionRouting(replicas: readonly string[], prefixes: readonly string[]): string {
  if (prefixes.length !== replicas.length) {
    throw new Error(`sessionPrefixes has ${prefixes.length} entries for ${replicas.length} replicas`);
  }
  const groups = replicas.map((primary, index) => {
    const backups = replicas.filter((_, other) => other !== index).map((r) => `    server ${r} backup;`);
    return [
      `  upstream replica_${index} {`,
      `    server ${primary};`,
      ...backups,
      '    keepalive 16;',
      '  }',
    ].join('\n');
  });
  const entries = prefixes.map((prefix, index) => {
    if (!/^[A-Za-z0-9_-]+$/.test(prefix))
      throw new Error(`session prefix ${JSON.stringify(prefix)} is not [A-Za-z0-9_-]+`);
    return `    ~^${prefix} replica_${index};`;
  });
  return [
    ...groups,
    '  map $http_mcp_session_id $mcp_upstream {',
    '    default replicas;',
    ...entries,
    '  }',
  ].join('\n');
}

export function renderNginxConfig(options: NginxConfigOptions): string {
  if (options.replicas.length === 0) throw new Error('nginx needs at least one replica');
  const p = options.prefix;
  const sticky = options.sessionPrefixes !== undefined;
  const timeout = options.readTimeoutSeconds ?? 3600;
  return `daemon off;
worker_processes 1;
pid ${p}/nginx.pid;
error_log ${p}/error.log warn;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path ${p}/client_body;
  proxy_temp_path ${p}/proxy;
  fastcgi_temp_path ${p}/fastcgi;
  uwsgi_temp_path ${p}/uwsgi;
  scgi_temp_path ${p}/scgi;
  upstream replicas {
${options.replicas.map((r) => `    server ${r};`).join('\n')}
    keepalive 32;
  }
${sticky ? sessionRouting(options.replicas, options.sessionPrefixes ?? []) : ''}
  server {
    listen 127.0.0.1:${options.port};
    location / {
      proxy_pass http://${sticky ? '$mcp_upstream' : 'replicas'};
      # keepalive to the replicas
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      # the replicas check Host/Origin: pass the client's
      proxy_set_header Host $http_host;
      # SSE and listen streams: no buffering, long reads
      proxy_buffering off;
      proxy_request_buffering off;
      proxy_cache off;
      proxy_read_timeout ${timeout}s;
      proxy_send_timeout ${timeout}s;
      # a refused connection (dead replica) moves on to the next one, POST included
      proxy_next_upstream error timeout;
    }
  }
}
`;
}

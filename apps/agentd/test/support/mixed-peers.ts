/**
 * One real agentd serving every kind of peer at once, for tests written as an adversarial peer:
 * its own stdio (restricted), a unix socket (management), and loopback HTTP: anonymous
 * (restricted) without a configured token, else management for whoever presents it (a daemon
 * with tokens refuses anonymous HTTP altogether).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Json, MODERN_META, NdjsonClient } from '@agentd/test-support';
import { CLI, cleanEnv } from './agentd-process.js';

export const BEARER = 'mixed-peers-bearer-token-0123456789';

export interface MixedPeers {
  /** The daemon's own stdio: a restricted peer (the agent harness that launched it). */
  readonly stdio: NdjsonClient;
  readonly socket: string;
  /** The MCP endpoint of the HTTP listener. */
  readonly httpUrl: string;
  /** Every stderr line: JSON log records, or `{raw}` for anything else. */
  readonly logs: Json[];
  /** All of stderr as written. */
  stderr(): string;
  stop(): Promise<void>;
}

/** Starts `agentd stdio` with a unix and an HTTP listener besides; `bearer` configures BEARER. */
export async function startMixedPeers(config: Json, options: { bearer?: boolean } = {}): Promise<MixedPeers> {
  const dir = mkdtempSync(join(tmpdir(), 'agentd-peers-'));
  const configPath = join(dir, 'agentd.json');
  const socket = join(dir, 'agentd.sock');
  const auth = options.bearer === true ? { auth: { bearerTokens: [{ name: 'ops', token: BEARER }] } } : {};
  writeFileSync(configPath, JSON.stringify({ ...auth, ...config }));
  const proc = spawn(
    process.execPath,
    [CLI, 'stdio', '--config', configPath, '--serve', `unix:${socket}`, '--serve', 'http://127.0.0.1:0'],
    { env: cleanEnv({ XDG_RUNTIME_DIR: dir, XDG_STATE_HOME: dir }), stdio: ['pipe', 'pipe', 'pipe'] },
  );
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  const logs: Json[] = [];
  let text = '';
  let pending = '';
  const started = new Promise<string>((resolve, reject) => {
    proc.stderr.setEncoding('utf8');
    proc.stderr.on('data', (chunk: string) => {
      text += chunk;
      pending += chunk;
      for (let nl = pending.indexOf('\n'); nl !== -1; nl = pending.indexOf('\n')) {
        const line = pending.slice(0, nl);
        pending = pending.slice(nl + 1);
        let log: Json;
        try {
          log = JSON.parse(line) as Json;
        } catch {
          log = { raw: line };
        }
        logs.push(log);
        if (log.msg === 'agentd started') {
          const http = logs.find((l) => l.msg === 'listening' && String(l.address).startsWith('http'));
          resolve(String(http?.address));
        }
      }
    });
    void exited.then(() => reject(new Error(`agentd exited before it started: ${text}`)));
  });
  const httpUrl = await started;
  return {
    stdio: new NdjsonClient(proc.stdout, proc.stdin),
    socket,
    httpUrl,
    logs,
    stderr: () => text,
    async stop() {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGTERM');
      await exited;
    },
  };
}

/** A stateless 2026-07-28 request over HTTP: anonymous without `token`, a new connection each time. */
export async function httpRequest(url: string, method: string, params: Json, token?: string): Promise<Json> {
  const target = params.name ?? params.uri;
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': String(MODERN_META['io.modelcontextprotocol/protocolVersion']),
      'mcp-method': method,
      ...(typeof target === 'string' ? { 'mcp-name': target } : {}),
      ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method,
      params: { ...params, _meta: { ...MODERN_META, ...(params._meta as Json | undefined) } },
    }),
  });
  return (await response.json()) as Json;
}

/** A tools/call's result over stateless HTTP (throws on a JSON-RPC error). */
export async function httpTool(url: string, name: string, args: Json, token?: string): Promise<Json> {
  const body = await httpRequest(url, 'tools/call', { name, arguments: args }, token);
  if (body.error !== undefined) throw new Error(`${name}: ${JSON.stringify(body.error)}`);
  return body.result as Json;
}

/** The text of an isError tool result (what a refused call says). */
export function refusalText(result: Json): string {
  if (result.isError !== true) throw new Error(`expected a refusal, got ${JSON.stringify(result)}`);
  return (result.content as { text: string }[])[0]?.text ?? '';
}

/** Test helpers: the example server as a child process, spoken to as an NDJSON 2026-07-28 peer. */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

export type Json = Record<string, unknown>;

export const EXAMPLE_DIR = join(dirname(fileURLToPath(import.meta.url)), '..');
export const SERVER = join(EXAMPLE_DIR, 'server.mjs');
export const UI_CAPS = {
  extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } },
};

/** Spawns `command` in the example folder; the returned stop function ends it (stdin closed, then SIGTERM). */
export function startChild(
  command: string,
  args: string[],
): { child: ChildProcessWithoutNullStreams; stop(): Promise<void> } {
  const child = spawn(command, args, { cwd: EXAMPLE_DIR, stdio: 'pipe' });
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.stdin.end();
      child.kill('SIGTERM');
    });
  return { child, stop };
}

/** A 2026-07-28 peer on a child's stdio: `send` resolves with the response carrying its id. */
export function modernPeer(child: ChildProcessWithoutNullStreams) {
  const waiting = new Map<number, (message: Json) => void>();
  createInterface({ input: child.stdout }).on('line', (line) => {
    const message = JSON.parse(line) as Json;
    waiting.get(message.id as number)?.(message);
  });
  let ids = 0;
  return (method: string, params: Json, capabilities: Json = UI_CAPS): Promise<Json> => {
    const id = ++ids;
    const _meta = {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientCapabilities': capabilities,
      'io.modelcontextprotocol/clientInfo': { name: 'example-test', version: '1.0.0' },
    };
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params: { ...params, _meta } })}\n`);
    return new Promise((resolve) => waiting.set(id, resolve));
  };
}

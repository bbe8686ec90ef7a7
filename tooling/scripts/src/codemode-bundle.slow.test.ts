/**
 * The Code Mode bundling recipe of @agentd/codemode's README, followed exactly: esbuild bundles a
 * small MCP server (dispatch + server core over stdio, `exposure: 'codemode'`) and the sandbox
 * worker entry, the QuickJS WebAssembly file is copied beside them, and the official SDK client
 * runs `execute` against the bundle in a directory with no node_modules anywhere above it. The
 * same bundle without the `wasm` option answers with the error that says what to do.
 */
import { execFileSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const scratch = mkdtempSync(join(tmpdir(), 'agentd-bundle-'));
const project = join(scratch, 'project');
const out = join(scratch, 'out');

const SERVER = `
import { CodeModeRunner } from '@agentd/codemode';
import { Dispatcher } from '@agentd/dispatch';
import { createServerCore, serveStdio } from '@agentd/server';

const wasm = process.env.LEAVE_OUT_WASM === '1' ? undefined : new URL('./quickjs.wasm', import.meta.url);
const runner = new CodeModeRunner({ workers: 1, wasm });
const dispatcher = new Dispatcher({ exposure: 'codemode', codeMode: { runner } });
dispatcher.registerOperation({
  kind: 'query',
  id: 'sum',
  description: 'Adds two numbers',
  outputType: 'number',
  args: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
  handler: ({ a, b }) => a + b,
});
const core = createServerCore({ handler: dispatcher, serverInfo: { name: 'bundled', version: '1.0.0' } });
await serveStdio(core);
`;

const clients: Client[] = [];

async function connect(env: Record<string, string> = {}): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [join(out, 'server.js')],
    cwd: out,
    env: { PATH: process.env.PATH ?? '', ...env },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'bundle-check', version: '1.0.0' });
  await client.connect(transport);
  clients.push(client);
  return client;
}

beforeAll(async () => {
  // The project's node_modules holds only the three packages it imports (their own dependencies
  // resolve from where they really are); the bundle goes to a sibling directory.
  mkdirSync(join(project, 'node_modules', '@agentd'), { recursive: true });
  for (const name of ['codemode', 'dispatch', 'server'])
    symlinkSync(join(root, 'packages', name), join(project, 'node_modules', '@agentd', name));
  writeFileSync(join(project, 'server.mjs'), SERVER);

  await build({
    absWorkingDir: project,
    entryPoints: { server: 'server.mjs', 'sandbox-worker': '@agentd/codemode/sandbox-worker' },
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    outdir: out,
    banner: {
      js: "import { createRequire as __bundleRequire } from 'node:module'; const require = __bundleRequire(import.meta.url);",
    },
    logLevel: 'silent',
  });
  // As the recipe's build script does, in a plain Node process of the project.
  const wasmPath = execFileSync(
    process.execPath,
    ['--input-type=module', '-e', "import('@agentd/codemode').then((m) => console.log(m.quickJsWasmPath()))"],
    { cwd: project, encoding: 'utf8' },
  ).trim();
  copyFileSync(wasmPath, join(out, 'quickjs.wasm'));
}, 60_000);

afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
  rmSync(scratch, { recursive: true, force: true });
});

describe('a bundled Code Mode server (esbuild)', () => {
  it('is a self-contained bundle: two files and the wasm, no node_modules above them', () => {
    expect(existsSync(join(out, 'server.js'))).toBe(true);
    expect(existsSync(join(out, 'sandbox-worker.js'))).toBe(true);
    for (let dir = out; dir !== dirname(dir); dir = dirname(dir))
      expect(existsSync(join(dir, 'node_modules')), `${dir}/node_modules`).toBe(false);
  });

  it('runs execute through the official SDK client', async () => {
    const client = await connect();
    const tools = await client.listTools();
    expect(tools.tools.map((tool) => tool.name).sort()).toEqual(['execute', 'search']);
    const result = await client.callTool({
      name: 'execute',
      arguments: {
        code: 'const n = await api.query("sum", { a: 2, b: 3 }); console.log("sum", n); return n * 2;',
      },
    });
    expect(result.isError).not.toBe(true);
    expect(result.structuredContent).toEqual({ result: 10, logs: ['sum 5'], truncated: false });
  });

  it('without the wasm option answers with an error that says how to hand it over', async () => {
    const client = await connect({ LEAVE_OUT_WASM: '1' });
    const result = await client.callTool({ name: 'execute', arguments: { code: 'return 1;' } });
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toContain(
      'A bundled server must hand it over: new CodeModeRunner({ wasm })',
    );
  });
});

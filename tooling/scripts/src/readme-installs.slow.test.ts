/**
 * Every README's install line installs everything its example imports: the @agentd/* packages
 * packed as they would be published (one pack for all), each distinct line installed with npm into
 * an empty folder (in parallel), the example written beside it (TypeScript stripped by esbuild) and
 * run under the Node running the suite; a server example is driven by a real client until it
 * answers, then stopped. The tools-only install is at most 7 packages besides the schema library.
 * Needs `turbo run build` first.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { freePort, startRedisServer } from '@agentd/cluster-harness';
import { installManifest, NPM_INSTALL, packWorkspace, runChecked, scrubbedEnv } from '@agentd/test-support';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { transform } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { importedPackages } from './bare-imports.js';
import { installedPackages, type ReadmeInstall, readmeInstall } from './readme-install.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
/** The tools-only server's install (quickstart): its package budget besides the schema library. */
const TOOLS_ONLY = '@agentd/dispatch zod';
// dispatch, server, lifecycle, rpc-frame, subscriptions, tasks (the TaskStore seam) and @opentelemetry/api.
const TOOLS_ONLY_BUDGET = 7;
/** READMEs of workspace-only examples, run from the repository (no install line by design). */
const WORKSPACE_ONLY = ['examples/mcp-app/README.md', 'examples/mcp-server/README.md'];

const readmes = [
  'README.md',
  ...['packages', 'examples'].flatMap((parent) =>
    readdirSync(join(root, parent))
      .map((name) => `${parent}/${name}/README.md`)
      .filter((path) => existsSync(join(root, path))),
  ),
];
const contracts = new Map<string, ReadmeInstall>();
for (const path of readmes) {
  const contract = readmeInstall(join(root, path));
  if (contract !== undefined) contracts.set(path, contract);
}

/** The version the workspace pins a bare registry name to, else `latest`. */
function registrySpec(name: string): string {
  for (const dir of ['tooling/scripts', 'examples/quickstart', 'packages/dispatch']) {
    const manifest = JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8'));
    const version = manifest.dependencies?.[name] ?? manifest.devDependencies?.[name];
    if (typeof version === 'string' && /^\d/.test(version)) return `${name}@${version}`;
  }
  return `${name}@latest`;
}

let scratch = '';
/** Install line → project folder it was installed into. */
const projects = new Map<string, string>();
const children = new Set<ChildProcess>();

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'agentd-readme-installs-'));
  const tarballs = join(scratch, 'tarballs');
  await mkdir(tarballs);
  const lines = new Set([...contracts.values()].map((c) => c.packages.join(' ')));
  const agentd = [...new Set([...contracts.values()].flatMap((c) => c.packages))].filter((n) =>
    n.startsWith('@agentd/'),
  );
  const local = await packWorkspace(agentd, tarballs);
  let index = 0;
  await Promise.all(
    [...lines].map(async (line) => {
      const project = join(scratch, `project-${index++}`);
      await mkdir(project);
      const deps = line
        .split(' ')
        .map((n) => (local[n] !== undefined || n.includes('@', 1) ? n : registrySpec(n)));
      const manifest = JSON.parse(installManifest(local, deps));
      await writeFile(
        join(project, 'package.json'),
        JSON.stringify({ ...manifest, type: 'module' }, null, 2),
      );
      await runChecked('npm', NPM_INSTALL, project);
      projects.set(line, project);
    }),
  );
}, 600_000);

afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  if (scratch !== '' && process.env.AGENTD_KEEP_PACK !== '1')
    await rm(scratch, { recursive: true, force: true });
});

/** Writes the README's example into its install's folder (placeholders replaced) and answers its path. */
async function writeExample(
  readme: string,
  replace: Record<string, string> = {},
): Promise<{ project: string; file: string }> {
  const contract = contracts.get(readme);
  if (contract === undefined) throw new Error(`${readme} has no install line`);
  const project = projects.get(contract.packages.join(' ')) as string;
  let code = contract.example.code;
  for (const [from, to] of Object.entries(replace)) {
    expect(code, `${readme}'s example names ${from}`).toContain(from);
    code = code.replaceAll(from, to);
  }
  if (contract.example.typescript) code = (await transform(code, { loader: 'ts', format: 'esm' })).code;
  const file = join(project, `${readme.replaceAll('/', '-').replace(/\.md$/, '')}.mjs`);
  await writeFile(file, code);
  return { project, file };
}

/** Starts `node file` in `cwd`; its stdout lines and exit are awaitable. */
function start(file: string, cwd: string, env: Record<string, string> = {}) {
  const child = spawn(process.execPath, [file], {
    cwd,
    env: scrubbedEnv(env),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  children.add(child);
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (t: string) => {
    stderr += t;
  });
  // 'close', not 'exit': stdout is read to its end first.
  const exited = once(child, 'close').then(([code, signal]) => {
    children.delete(child);
    return { code: code as number | null, signal: signal as string | null, stderr: () => stderr };
  });
  return { child, exited, stderr: () => stderr, lines: createInterface({ input: child.stdout }) };
}

/**
 * Retries `attempt` until it succeeds (the example is still starting) or the example exits,
 * which fails at once with its stderr.
 */
function whileRunning<T>(
  run: ReturnType<typeof start>,
  attempt: () => Promise<T>,
  interval = 100,
): Promise<T> {
  const answered = vi.waitFor(attempt, { timeout: 30_000, interval });
  answered.catch(() => {}); // raced below: a late rejection after the example exited is not news
  const exited = run.exited.then((exit): never => {
    throw new Error(`the example exited ${exit.code}: ${exit.stderr()}`);
  });
  exited.catch(() => {});
  return Promise.race([answered, exited]);
}

/**
 * Starts the vsock README's example on a random port and resolves once it has bound it. vsock
 * ports belong to the whole host, not to a network namespace, so another process may hold the
 * one picked: the example then exits with EADDRINUSE and another port is tried.
 */
async function startVsockExample() {
  for (let attempt = 1; ; attempt++) {
    const port = 20_000 + Math.floor(Math.random() * 40_000);
    const { project, file } = await writeExample('packages/transport-vsock/README.md', {
      "'vsock:5005'": `'vsock:${port}'`,
      // bindVsock is synchronous: once this line is printed, the port is the example's.
      "process.once('SIGTERM'": "console.log('bound');\nprocess.once('SIGTERM'",
    });
    const run = start(file, project);
    const [line] = (await Promise.race([once(run.lines, 'line'), run.exited.then(() => [undefined])])) as [
      string | undefined,
    ];
    if (line === 'bound') return { run, port, project };
    const exit = await run.exited;
    if (attempt < 5 && exit.stderr().includes('EADDRINUSE')) continue;
    throw new Error(`the vsock example did not bind port ${port} (exit ${exit.code}): ${exit.stderr()}`);
  }
}

/** Runs the example to completion and answers its stdout (a non-zero exit fails with its stderr). */
async function runToEnd(readme: string, replace?: Record<string, string>): Promise<string> {
  const { project, file } = await writeExample(readme, replace);
  return runChecked(process.execPath, [file], project);
}

/** An MCP server example on stdio, driven by the official SDK client. */
async function stdioClient(readme: string): Promise<Client> {
  const { project, file } = await writeExample(readme);
  const client = new Client({ name: 'readme-installs', version: '1.0.0' });
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [file],
    cwd: project,
    env: scrubbedEnv() as Record<string, string>,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += String(chunk);
  });
  try {
    await client.connect(transport);
  } catch (error) {
    // The SDK only says "Connection closed": the example's own stderr says why.
    throw new Error(`${readme}'s example did not answer: ${(error as Error).message}\n${stderr}`);
  }
  return client;
}

/** A JSON-RPC POST over plain node:http (so Host and Authorization can be set). */
function post(url: string, body: unknown, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; body: string }>((done, fail) => {
    const req = request(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...headers,
      },
    });
    req.on('error', fail);
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (t: string) => {
        text += t;
      });
      res.on('end', () => done({ status: res.statusCode as number, body: text }));
    });
    req.end(JSON.stringify(body));
  });
}

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'readme-installs', version: '1.0.0' },
  },
};

describe(`README install lines install what their examples import (Node ${process.version})`, () => {
  it('finds an install line in every README but the workspace-only examples', () => {
    const without = readmes.filter((path) => !contracts.has(path));
    expect(without).toEqual(WORKSPACE_ONLY);
    expect(contracts.size).toBeGreaterThanOrEqual(12);
  });

  it.each([...contracts.keys()])('%s: the install line names every package its example imports', (readme) => {
    const contract = contracts.get(readme) as ReadmeInstall;
    const named = contract.packages.map((spec) => spec.replace(/(?<=.)@.*$/, ''));
    expect(importedPackages(contract.example.code).filter((name) => !named.includes(name))).toEqual([]);
  });

  it(`the tools-only install (${TOOLS_ONLY}) is at most ${TOOLS_ONLY_BUDGET} packages besides zod`, () => {
    for (const path of ['README.md', 'examples/quickstart/README.md', 'packages/dispatch/README.md'])
      expect(contracts.get(path)?.packages.join(' '), path).toBe(TOOLS_ONLY);
    const installed = installedPackages(join(projects.get(TOOLS_ONLY) as string, 'node_modules'));
    const counted = installed.filter((name) => name !== 'zod');
    expect(counted.length, counted.join(', ')).toBeLessThanOrEqual(TOOLS_ONLY_BUDGET);
    expect(installed).toContain('@agentd/dispatch');
  });

  it.each(['README.md', 'examples/quickstart/README.md', 'packages/dispatch/README.md'])(
    '%s: the stdio quickstart answers the official SDK client',
    async (readme) => {
      const client = await stdioClient(readme);
      try {
        const { tools } = await client.listTools();
        expect(tools.map((t) => t.name)).toEqual(['greet']);
        expect(await client.callTool({ name: 'greet', arguments: { name: 'Ada' } })).toMatchObject({
          content: [{ type: 'text', text: 'Hello, Ada!' }],
        });
      } finally {
        await client.close();
      }
    },
    60_000,
  );

  it('packages/server: serveStdio answers the official SDK client', async () => {
    const client = await stdioClient('packages/server/README.md');
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(['hello']);
      expect(await client.callTool({ name: 'hello', arguments: {} })).toMatchObject({
        content: [{ type: 'text', text: expect.stringMatching(/^hi /) }],
      });
    } finally {
      await client.close();
    }
  }, 60_000);

  it('packages/rpc-frame: the stdin loop answers a request frame', async () => {
    const { project, file } = await writeExample('packages/rpc-frame/README.md');
    const run = start(file, project);
    run.child.stdin.write('{"jsonrpc":"2.0","id":7,"method":"ping"}\n');
    const [line] = (await once(run.lines, 'line')) as [string];
    expect(JSON.parse(line)).toEqual({ jsonrpc: '2.0', id: 7, result: {} });
    run.child.stdin.write('not json\n');
    const [invalid] = (await once(run.lines, 'line')) as [string];
    expect(JSON.parse(invalid)).toMatchObject({ jsonrpc: '2.0', error: { code: -32700 } });
    run.child.stdin.end();
    expect((await run.exited).code).toBe(0);
  }, 60_000);

  it('packages/codemode: runs the sandboxed code', async () => {
    const out = await runToEnd('packages/codemode/README.md');
    expect(out).toContain('subagent');
    expect(out).toMatch(/ok: true/);
    expect(out).toContain("logs: [ 'running' ]");
  }, 120_000);

  it('packages/lifecycle: answers server/discover', async () => {
    const out = (await runToEnd('packages/lifecycle/README.md')).trim().split('\n');
    expect(out[0]).toBe('modern');
    expect(JSON.parse(out[1] as string)).toMatchObject({
      jsonrpc: '2.0',
      id: 1,
      result: { capabilities: { tools: {} } },
    });
  }, 60_000);

  it('packages/subscriptions: notifies the registered writer', async () => {
    const { project, file } = await writeExample('packages/subscriptions/README.md');
    const result = await runCommandAll(file, project);
    expect(result.stderr.trim().split('\n')).toEqual(['1', '1', '0']);
    const lines = result.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatchObject({
      method: 'notifications/resources/updated',
      params: { uri: 'agent://Run/42/' },
    });
  }, 60_000);

  it('packages/tasks: the memory store binds tasks to their owner and keeps terminal ones', async () => {
    const out = (await runToEnd('packages/tasks/README.md')).trim().split('\n');
    expect(out).toEqual(['working', 'completed', 'undefined', 'completed']);
  }, 60_000);

  it('packages/skills: the skill registered in code is listed and read over stdio', async () => {
    const client = await stdioClient('packages/skills/README.md');
    try {
      const uris = (await client.listResources()).resources.map((resource) => resource.uri);
      expect(uris).toEqual([
        'skill://pdf-processing/SKILL.md',
        'skill://pdf-processing/templates/invoice.md',
      ]);
      expect(await client.readResource({ uri: 'skill://pdf-processing/SKILL.md' })).toMatchObject({
        contents: [{ mimeType: 'text/markdown', text: expect.stringContaining('# PDF') }],
      });
    } finally {
      await client.close();
    }
  }, 60_000);

  it('packages/transport-unix: a ping over the socket is answered', async () => {
    const socket = join(scratch, 'demo.sock');
    const out = await runToEnd('packages/transport-unix/README.md', { '/tmp/demo.sock': socket });
    expect(JSON.parse(out.trim())).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
  }, 60_000);

  it('packages/transport-http: the official SDK client calls greet over HTTP', async () => {
    const port = await freePort();
    const { project, file } = await writeExample('packages/transport-http/README.md', {
      'port: 3000': `port: ${port}`,
    });
    const run = start(file, project);
    const url = new URL(`http://127.0.0.1:${port}/mcp`);
    // A fresh client per attempt: one whose connect failed is not reused.
    const client = await whileRunning(run, async () => {
      const attempt = new Client({ name: 'readme-installs', version: '1.0.0' });
      await attempt.connect(new StreamableHTTPClientTransport(url));
      return attempt;
    });
    try {
      expect(await client.callTool({ name: 'greet', arguments: { name: 'Ada' } })).toMatchObject({
        content: [{ type: 'text', text: 'Hello, Ada!' }],
      });
    } finally {
      await client.close();
    }
    run.child.kill('SIGTERM');
    const exit = await run.exited;
    expect(exit, exit.stderr()).toMatchObject({ code: 0 });
  }, 60_000);

  it('packages/redis: the replica answers initialize with its token and host', async () => {
    const redis = await startRedisServer();
    try {
      const port = await freePort();
      const { project, file } = await writeExample('packages/redis/README.md', {
        'port: 3000': `port: ${port}`,
        "host: '0.0.0.0'": "host: '127.0.0.1'",
      });
      const run = start(file, project, {
        REDIS_URL: redis.url,
        MCP_TOKEN: 'readme-installs-token-0123456789',
      });
      const url = `http://127.0.0.1:${port}/mcp`;
      const headers = { host: 'mcp.example.com', authorization: 'Bearer readme-installs-token-0123456789' };
      const answer = await whileRunning(run, async () => {
        return post(url, INITIALIZE, headers);
      });
      expect(answer.status).toBe(200);
      expect(answer.body).toContain('"serverInfo"');
      expect((await post(url, INITIALIZE, { host: 'mcp.example.com' })).status).toBe(401);
      run.child.kill('SIGTERM');
      await run.exited;
    } finally {
      await redis.close();
    }
  }, 90_000);

  it('packages/transport-vsock: the example holds its vsock port, answers over loopback, stops on SIGTERM', async () => {
    const { run, port, project } = await startVsockExample();
    // Bound by the example: a second bind of the port is refused (vsock has no ss/diag view here).
    const probe = join(project, 'vsock-probe.mjs');
    await writeFile(
      probe,
      [
        "import { bindVsock } from '@agentd/transport-vsock';",
        'try {',
        `  bindVsock({ port: ${port} }).close();`,
        '  process.exit(1);',
        '} catch (error) {',
        "  process.exit(error.code === 'EADDRINUSE' ? 0 : 2);",
        '}',
      ].join('\n'),
    );
    // Only once the example has bound: a probe racing its start would take the port from it.
    await runChecked(process.execPath, [probe], project);
    if (existsSync('/sys/module/vsock_loopback')) {
      // Where the kernel has a loopback transport (CID 1), a real client gets the answer.
      const client = join(project, 'vsock-client.mjs');
      await writeFile(
        client,
        [
          "import { connectVsock, VMADDR_CID_LOCAL } from '@agentd/transport-vsock';",
          `const socket = connectVsock(VMADDR_CID_LOCAL, ${port});`,
          "socket.on('data', (chunk) => process.stdout.write(chunk));",
          `socket.end('{"jsonrpc":"2.0","id":1,"method":"tools/list"}\\n');`,
        ].join('\n'),
      );
      const out = await runChecked(process.execPath, [client], project);
      expect(JSON.parse(out.trim())).toEqual({ jsonrpc: '2.0', id: 1, result: { tools: [] } });
    }
    run.child.kill('SIGTERM');
    const exit = await run.exited;
    expect(exit, exit.stderr()).toMatchObject({ code: 0 });
  }, 60_000);
});

/** Runs `node file` to completion and answers both streams (exit code 0 asserted). */
async function runCommandAll(file: string, cwd: string) {
  const run = start(file, cwd);
  let stdout = '';
  run.lines.on('line', (line) => {
    stdout += `${line}\n`;
  });
  const exit = await run.exited;
  expect(exit.code, exit.stderr()).toBe(0);
  return { stdout, stderr: exit.stderr() };
}

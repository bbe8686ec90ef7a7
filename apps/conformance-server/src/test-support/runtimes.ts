/** Finds the Bun, Deno and workerd binaries their npm packages ship, and starts the fixture under each. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { vi } from 'vitest';
import { type FixtureProcess, startPrinter } from './fixture-process.js';

const require = createRequire(import.meta.url);
const DIST = fileURLToPath(new URL('../../dist/', import.meta.url));

/** The platform package's binary (their postinstall scripts, which only link it, are not run). */
function platformBinary(pkg: string, platformPkg: string, file: string): string {
  const from = createRequire(require.resolve(`${pkg}/package.json`));
  return join(dirname(from.resolve(`${platformPkg}/package.json`)), file);
}

export type Runtime = 'bun' | 'deno' | 'workerd' | 'miniflare';

/**
 * Miniflare (what `wrangler dev` runs: workerd behind an entry worker) needs Node >= 22, so it
 * runs through npx on a pinned Node, as the conformance suite does; its workerd is older than
 * the `workerd` package's and differs (it forbids aborting another request's AbortController).
 */
const MINIFLARE = ['-y', '-p', 'node@24.21.0', '-p', 'miniflare@4.20260730.0'];

/** Undefined (with the reason) where this machine's platform has no binary in the package. */
export function binaryOf(runtime: Runtime): { path: string } | { missing: string } {
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    return { missing: `no ${runtime} binary wired for ${process.platform}-${process.arch} in this test` };
  }
  if (runtime === 'miniflare') return { path: 'npx' };
  try {
    if (runtime === 'bun') return { path: platformBinary('bun', '@oven/bun-linux-x64', 'bin/bun') };
    if (runtime === 'deno') return { path: platformBinary('deno', '@deno/linux-x64-glibc', 'deno') };
    return { path: platformBinary('workerd', '@cloudflare/workerd-linux-64', 'bin/workerd') };
  } catch (error) {
    return { missing: `${runtime} is not installed: ${(error as Error).message}` };
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** One ES module for workerd: the worker entry and its workspace dependencies (Code Mode's sandbox left out). */
async function bundleWorker(dir: string): Promise<void> {
  const { build } = await import('rolldown');
  await build({
    input: join(DIST, 'runtimes/worker.js'),
    platform: 'neutral',
    resolve: { conditionNames: ['workerd', 'worker', 'import', 'default'], mainFields: ['module', 'main'] },
    // The sandbox is loaded only when Code Mode is on; it is Node-only.
    external: (id) => id === '@agentd/codemode' || id.startsWith('node:'),
    output: { file: join(dir, 'worker.js'), format: 'esm', codeSplitting: false },
    logLevel: 'warn',
  });
}

const WORKERD_CONFIG = (port: number) => `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [ (name = "main", worker = .mainWorker) ],
  sockets = [ ( name = "http", address = "127.0.0.1:${port}", http = (), service = "main" ) ],
);
const mainWorker :Workerd.Worker = (
  modules = [ (name = "worker", esModule = embed "worker.js") ],
  compatibilityDate = "2026-11-01",
  compatibilityFlags = ["enable_request_signal"],
);
`;

/** workerd prints nothing when ready: poll until the socket answers. */
async function waitForHttp(url: string, stop: () => Promise<void>): Promise<void> {
  try {
    await vi.waitFor(
      async () => {
        const res = await fetch(url, { method: 'GET' });
        await res.text();
      },
      { timeout: 20_000, interval: 50 },
    );
  } catch (error) {
    await stop();
    throw new Error(`workerd did not answer at ${url}`, { cause: error });
  }
}

/** Runs under `npx -p miniflare@…`: finds the package in npx's temporary install through PATH. */
const MINIFLARE_RUNNER = `import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
const [dir] = process.argv.slice(2);
const bin = process.env.PATH.split(':').find((p) => p.includes('_npx') && p.endsWith('.bin'));
const { Miniflare } = await import(pathToFileURL(join(bin, '..', 'miniflare', 'dist', 'src', 'index.js')).href);
const mf = new Miniflare({
  modulesRoot: dir,
  modules: [
    { type: 'ESModule', path: join(dir, 'worker.js') },
    // The bundle's dynamic import of Code Mode (never taken there) still needs a module.
    { type: 'ESModule', path: join(dir, 'node_modules/@agentd/codemode'), contents: 'export {};' },
  ],
  compatibilityDate: '2026-07-01',
  // No enable_request_signal: this workerd fails to start with it; a client gone is noticed
  // when a write to its stream fails, as without the flag.
  compatibilityFlags: ['nodejs_compat'],
  host: '127.0.0.1',
  port: 0,
});
const url = await mf.ready;
console.log(JSON.stringify({ url: url.origin + '/mcp' }));
process.on('SIGTERM', () => mf.dispose().then(() => process.exit(0)));
`;

export async function startRuntime(runtime: Runtime, binary: string): Promise<FixtureProcess> {
  if (runtime === 'miniflare') {
    const dir = mkdtempSync(join(tmpdir(), 'agentd-miniflare-'));
    await bundleWorker(dir);
    writeFileSync(join(dir, 'runner.mjs'), MINIFLARE_RUNNER);
    // Its own process group: npx, Node and workerd all go when the fixture stops.
    return startPrinter(binary, [...MINIFLARE, 'node', join(dir, 'runner.mjs'), dir], undefined, true);
  }
  if (runtime === 'bun') return startPrinter(binary, [join(DIST, 'runtimes/bun.js')]);
  if (runtime === 'deno') {
    return startPrinter(
      binary,
      ['run', '--allow-net', '--allow-read', '--allow-env', join(DIST, 'runtimes/deno.js')],
      {
        DENO_NO_UPDATE_CHECK: '1',
      },
    );
  }
  const dir = mkdtempSync(join(tmpdir(), 'agentd-workerd-'));
  await bundleWorker(dir);
  const port = await freePort();
  writeFileSync(join(dir, 'config.capnp'), WORKERD_CONFIG(port));
  const { spawn } = await import('node:child_process');
  const child = spawn(binary, ['serve', join(dir, 'config.capnp')], { stdio: ['ignore', 'ignore', 'pipe'] });
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((done) => child.once('exit', done));
    child.kill('SIGTERM');
    await exited;
  };
  const url = `http://localhost:${port}/mcp`;
  await waitForHttp(url, stop);
  return { url, stop };
}

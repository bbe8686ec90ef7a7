/**
 * The installable daemon: `@agentd/agentd` and the @agentd/* libraries it depends on, packed as
 * they would be published, installed with npm into an empty folder outside the workspace; then
 * `agentd --version`, `npx @agentd/agentd --version`, the daemon on a temp socket, `agentd status`,
 * and a clean stop. Runs under whichever Node runs the suite (20 and 24). Needs a build first.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const app = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const root = resolve(app, '../..');

interface Manifest {
  name: string;
  version: string;
  dependencies?: Record<string, string>;
}

const readManifest = (dir: string) => JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Manifest;

/** The workspace packages agentd needs at runtime: its @agentd/* dependencies, transitively. */
function workspaceClosure(): Map<string, string> {
  const dirs = new Map<string, string>();
  for (const entry of readdirSync(join(root, 'packages'))) {
    try {
      dirs.set(readManifest(join(root, 'packages', entry)).name, join(root, 'packages', entry));
    } catch {
      // not a package
    }
  }
  const needed = new Map<string, string>([[readManifest(app).name, app]]);
  const queue = [app];
  while (queue.length > 0) {
    const dir = queue.pop() as string;
    for (const dep of Object.keys(readManifest(dir).dependencies ?? {})) {
      const depDir = dirs.get(dep);
      if (depDir === undefined || needed.has(dep)) continue;
      needed.set(dep, depDir);
      queue.push(depDir);
    }
  }
  return needed;
}

/** The outer test run's npm_* variables and NODE_OPTIONS must not leak into the nested npm. */
function scrubbedEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (/^npm_/i.test(key) || key === 'NODE_OPTIONS' || key === 'INIT_CWD' || key.startsWith('AGENTD_'))
      continue;
    env[key] = value;
  }
  // The installed bin's `#!/usr/bin/env node` must find the Node this suite runs on.
  env.PATH = [dirname(process.execPath), env.PATH ?? ''].join(delimiter);
  return { ...env, ...extra };
}

function run(
  command: string,
  args: string[],
  cwd: string,
  env = scrubbedEnv(),
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done, fail) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (t: string) => {
      stdout += t;
    });
    child.stderr.setEncoding('utf8').on('data', (t: string) => {
      stderr += t;
    });
    child.on('error', fail);
    child.on('close', (code) => done({ code, stdout, stderr }));
  });
}

async function checked(command: string, args: string[], cwd: string): Promise<string> {
  const result = await run(command, args, cwd);
  if (result.code !== 0)
    throw new Error(`${command} ${args.join(' ')} exited ${result.code}\n${result.stdout}\n${result.stderr}`);
  return result.stdout;
}

let scratch = '';
let project = '';
const version = readManifest(app).version;

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'agentd-pack-run-'));
  const tarballs = join(scratch, 'tarballs');
  project = join(scratch, 'project');
  await mkdir(tarballs);
  await mkdir(project);
  const pnpmVersion = (
    JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { packageManager: string }
  ).packageManager;
  const pnpm = (await checked('npx', ['-y', '-p', pnpmVersion, '-c', 'command -v pnpm'], tmpdir())).trim();
  const local: Record<string, string> = {};
  for (const [name, dir] of workspaceClosure()) {
    const out = await checked(pnpm, ['pack', '--json', '--pack-destination', tarballs], dir);
    local[name] = `file:${resolve(dir, (JSON.parse(out) as { filename: string }).filename)}`;
  }
  // An empty project that depends on the daemon alone; overrides point @agentd/* at the tarballs.
  const manifest = {
    name: 'agentd-install-check',
    private: true,
    dependencies: { '@agentd/agentd': local['@agentd/agentd'] },
    overrides: local,
  };
  await writeFile(join(project, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  await checked(
    'npm',
    ['install', '--prefer-offline', '--no-audit', '--no-fund', '--no-package-lock', '--loglevel=error'],
    project,
  );
}, 600_000);

afterAll(async () => {
  if (scratch !== '' && process.env.AGENTD_KEEP_PACK !== '1')
    await rm(scratch, { recursive: true, force: true });
});

describe(`@agentd/agentd installed from its tarball (Node ${process.version})`, () => {
  it('agentd --version and npx @agentd/agentd --version', async () => {
    const bin = join(project, 'node_modules', '.bin', 'agentd');
    const direct = await run(bin, ['--version'], project);
    expect(direct).toMatchObject({ code: 0, stdout: `agentd ${version}\n` });
    const viaNpx = await run('npx', ['--no-install', '@agentd/agentd', '--version'], project);
    expect(viaNpx).toMatchObject({ code: 0, stdout: `agentd ${version}\n` });
  });

  it('starts the daemon on a temp socket, answers agentd status, stops cleanly', async () => {
    const bin = join(project, 'node_modules', '.bin', 'agentd');
    const runtime = await mkdtemp(join(tmpdir(), 'agentd-pack-xdg-'));
    const socket = join(runtime, 'agentd.sock');
    const env = scrubbedEnv({ XDG_RUNTIME_DIR: runtime });
    const daemon: ChildProcess = spawn(bin, ['--serve', `unix:${socket}`], {
      cwd: project,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let logs = '';
    daemon.stderr?.on('data', (c: Buffer) => {
      logs += c.toString();
    });
    const exited = new Promise<number | null>((done) => daemon.on('exit', (code) => done(code)));
    try {
      await new Promise<void>((ready, fail) => {
        let out = '';
        daemon.stdout?.on('data', (c: Buffer) => {
          out += c.toString();
          if (out.includes(socket)) ready();
        });
        void exited.then((code) => fail(new Error(`agentd exited (${code}) before listening: ${logs}`)));
      });
      const status = await run(bin, ['status', '--socket', socket], project, env);
      expect(status.code).toBe(0);
      expect(status.stdout).toContain(`agentd ${version}`);
      const spawned = await run(
        bin,
        ['spawn', '--json', '--socket', socket, 'uppercase installed'],
        project,
        env,
      );
      expect(JSON.parse(spawned.stdout)).toMatchObject({ state: 'succeeded', output: 'INSTALLED' });
    } finally {
      daemon.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
  });
});

/**
 * `@agentd/agentd` packed as it would be published, with the @agentd/* libraries it needs, and the
 * process helpers the install tests share: commands run with the outer test run's npm variables
 * scrubbed, so a nested npm acts on its scratch project and not on the workspace.
 */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const app = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const root = resolve(app, '../..');

interface Manifest {
  name: string;
  version: string;
  dependencies?: Record<string, string>;
}

export const readManifest = (dir: string) =>
  JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Manifest;

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

/**
 * The outer test run's npm_* variables and NODE_OPTIONS must not leak into the nested npm. `node`
 * is the Node whose directory leads PATH (default: the one running this suite), so the installed
 * bin's `#!/usr/bin/env node` finds it; `path` replaces PATH's remainder.
 */
export function scrubbedEnv(
  extra: Record<string, string> = {},
  options: { nodeDir?: string; path?: string } = {},
): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (/^npm_/i.test(key) || key === 'NODE_OPTIONS' || key === 'INIT_CWD' || key.startsWith('AGENTD_'))
      continue;
    env[key] = value;
  }
  env.PATH = [options.nodeDir ?? dirname(process.execPath), options.path ?? env.PATH ?? ''].join(delimiter);
  return { ...env, ...extra };
}

export function run(
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

export async function checked(
  command: string,
  args: string[],
  cwd: string,
  env = scrubbedEnv(),
): Promise<string> {
  const result = await run(command, args, cwd, env);
  if (result.code !== 0)
    throw new Error(`${command} ${args.join(' ')} exited ${result.code}\n${result.stdout}\n${result.stderr}`);
  return result.stdout;
}

/** Packs agentd and its @agentd/* closure into `tarballs` with the pinned pnpm: name → `file:` spec. */
export async function packAgentd(tarballs: string): Promise<Record<string, string>> {
  const pnpmVersion = (
    JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { packageManager: string }
  ).packageManager;
  const pnpm = (await checked('npx', ['-y', '-p', pnpmVersion, '-c', 'command -v pnpm'], tmpdir())).trim();
  const local: Record<string, string> = {};
  for (const [name, dir] of workspaceClosure()) {
    const out = await checked(pnpm, ['pack', '--json', '--pack-destination', tarballs], dir);
    local[name] = `file:${resolve(dir, (JSON.parse(out) as { filename: string }).filename)}`;
  }
  return local;
}

/** An empty project that depends on the daemon alone; overrides point @agentd/* at the tarballs. */
export function installManifest(local: Record<string, string>): string {
  const manifest = {
    name: 'agentd-install-check',
    private: true,
    dependencies: { '@agentd/agentd': local['@agentd/agentd'] },
    overrides: local,
  };
  return `${JSON.stringify(manifest, null, 2)}\n`;
}

export const NPM_INSTALL = [
  'install',
  '--prefer-offline',
  '--no-audit',
  '--no-fund',
  '--no-package-lock',
  '--loglevel=error',
];

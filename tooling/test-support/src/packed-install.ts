/**
 * Workspace packages packed as they would be published and installed with npm into a scratch
 * project outside the workspace, and the process helpers such install tests need: commands run
 * with the outer test run's npm variables scrubbed, so a nested npm acts on its scratch project
 * and not on the workspace.
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

interface Manifest {
  name: string;
  version: string;
  dependencies?: Record<string, string>;
}

interface CommandResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

const readManifest = (dir: string) => JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Manifest;

/** Every workspace package under packages/ and apps/, by name. */
function workspaceDirs(): Map<string, string> {
  const dirs = new Map<string, string>();
  for (const parent of ['packages', 'apps']) {
    for (const entry of readdirSync(join(root, parent))) {
      const dir = join(root, parent, entry);
      if (existsSync(join(dir, 'package.json'))) dirs.set(readManifest(dir).name, dir);
    }
  }
  return dirs;
}

/** The named workspace packages and the workspace packages they depend on at runtime, transitively. */
function workspaceClosure(names: readonly string[]): Map<string, string> {
  const dirs = workspaceDirs();
  const needed = new Map<string, string>();
  const queue = [...names];
  while (queue.length > 0) {
    const name = queue.pop() as string;
    const dir = dirs.get(name);
    if (dir === undefined) throw new Error(`${name} is not a workspace package`);
    if (needed.has(name)) continue;
    needed.set(name, dir);
    for (const dep of Object.keys(readManifest(dir).dependencies ?? {})) if (dirs.has(dep)) queue.push(dep);
  }
  return needed;
}

/**
 * The outer test run's npm_* variables, NODE_OPTIONS and AGENTD_* must not leak into the nested
 * process. `node` is the Node whose directory leads PATH (default: the one running this suite), so
 * an installed bin's `#!/usr/bin/env node` finds it; `path` replaces PATH's remainder.
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

/**
 * Runs a command to completion and collects its output (the environment scrubbed by default).
 * `input`, when given, is written to its stdin; stdin is then closed.
 */
export function runCommand(
  command: string,
  args: readonly string[],
  cwd: string,
  env = scrubbedEnv(),
  input?: string,
): Promise<CommandResult> {
  return new Promise((done, fail) => {
    const child = spawn(command, args, { cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
    // Without input stdin is closed at once: the command reads end of file, as from /dev/null.
    child.stdin.on('error', () => {});
    child.stdin.end(input);
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

/** Like runCommand, but a non-zero exit is an error carrying the command's output. */
export async function runChecked(
  command: string,
  args: readonly string[],
  cwd: string,
  env = scrubbedEnv(),
): Promise<string> {
  const result = await runCommand(command, args, cwd, env);
  if (result.code !== 0)
    throw new Error(`${command} ${args.join(' ')} exited ${result.code}\n${result.stdout}\n${result.stderr}`);
  return result.stdout;
}

/**
 * Packs the named workspace packages and every workspace package they need at runtime into
 * `tarballs`, with the workspace's pinned pnpm (it rewrites `workspace:` ranges as publishing does).
 * Answers name → `file:` spec of its tarball, for installManifest.
 */
export async function packWorkspace(
  names: readonly string[],
  tarballs: string,
): Promise<Record<string, string>> {
  const pnpmVersion = (readManifest(root) as Manifest & { packageManager: string }).packageManager;
  const pnpm = (await runChecked('npx', ['-y', '-p', pnpmVersion, '-c', 'command -v pnpm'], tmpdir())).trim();
  const local: Record<string, string> = {};
  for (const [name, dir] of workspaceClosure(names)) {
    const out = await runChecked(pnpm, ['pack', '--json', '--pack-destination', tarballs], dir);
    local[name] = `file:${resolve(dir, (JSON.parse(out) as { filename: string }).filename)}`;
  }
  return local;
}

/**
 * The package.json of an empty project depending on `dependencies` (names packed by packWorkspace,
 * or registry `name@range` specs); overrides point every packed name at its tarball, so a
 * transitive workspace dependency installs from the tarball too.
 */
export function installManifest(local: Record<string, string>, dependencies: readonly string[]): string {
  const deps: Record<string, string> = {};
  for (const dep of dependencies) {
    const at = dep.lastIndexOf('@');
    if (local[dep] !== undefined) deps[dep] = local[dep];
    else if (at > 0) deps[dep.slice(0, at)] = dep.slice(at + 1);
    else throw new Error(`${dep} was not packed and names no version`);
  }
  const manifest = { name: 'packed-install-check', private: true, dependencies: deps, overrides: local };
  return `${JSON.stringify(manifest, null, 2)}\n`;
}

/** `npm install` arguments for a scratch project: quiet, no lockfile, offline cache first. */
export const NPM_INSTALL = [
  'install',
  '--prefer-offline',
  '--no-audit',
  '--no-fund',
  '--no-package-lock',
  '--loglevel=error',
] as const;

/**
 * What the READMEs tell pnpm users about @agentd/transport-vsock's install-time build, checked
 * with the pinned pnpm on the packed packages: unapproved, the install stops with
 * ERR_PNPM_IGNORED_BUILDS; approved in `allowBuilds`, the addon is built and loads; declined
 * (`false`), the install succeeds and the package says how to allow the build.
 */
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PublicPackage, publicPackages } from './public-packages.js';
import { cleanEnv, runChecked, runCommand } from './run-command.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const pnpmVersion = (
  JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { packageManager: string }
).packageManager;
const VSOCK = '@agentd/transport-vsock';

/** The package and every workspace package it depends on, transitively. */
function withInternalDependencies(name: string, all: Map<string, PublicPackage>): PublicPackage[] {
  const found = new Map<string, PublicPackage>();
  const visit = (current: string) => {
    const pkg = all.get(current);
    if (pkg === undefined || found.has(current)) return;
    found.set(current, pkg);
    for (const dep of Object.keys({ ...pkg.manifest.dependencies, ...pkg.manifest.peerDependencies }))
      visit(dep);
  };
  visit(name);
  return [...found.values()];
}

/**
 * Node headers for the build: the running Node's own, else the machine's (the Node 24 run uses
 * the npm `node` package, which ships none: there the script asks for npm_config_nodedir).
 */
const nodedir = [dirname(dirname(process.execPath)), '/usr', '/usr/local'].find((dir) =>
  existsSync(join(dir, 'include', 'node', 'node_api.h')),
);

let scratch = '';
let pnpm = '';
const tarballs = new Map<string, string>();

/** A pnpm project depending on the vsock tarball; `allow` is its allowBuilds entry, if any. */
async function project(name: string, allow: boolean | undefined) {
  const dir = join(scratch, name);
  await mkdir(dir);
  // Relative specs: pnpm keys allowBuilds by the spec as it normalises it (relative to the project).
  const spec = (file: string) => `file:../tarballs/${basename(file)}`;
  const vsock = spec(tarballs.get(VSOCK) ?? '');
  const manifest = { name, private: true, type: 'module', dependencies: { [VSOCK]: vsock } };
  await writeFile(join(dir, 'package.json'), JSON.stringify(manifest, null, 2));
  const lines = ['overrides:', ...[...tarballs].map(([pkg, file]) => `  '${pkg}': '${spec(file)}'`)];
  // For a registry install the key is the bare name; pnpm keys a tarball dependency by its spec.
  if (allow !== undefined) lines.push('allowBuilds:', `  '${VSOCK}@${vsock}': ${allow}`);
  await writeFile(join(dir, 'pnpm-workspace.yaml'), `${lines.join('\n')}\n`);
  const result = await runCommand(pnpm, ['install', '--offline'], {
    cwd: dir,
    env: cleanEnv({ CI: 'true', ...(nodedir === undefined ? {} : { npm_config_nodedir: nodedir }) }),
  });
  return { dir, ...result, output: result.stdout + result.stderr };
}

async function vsockState(dir: string): Promise<{ reason: string | null; cid: number | null }> {
  const probe = `const m = await import('${VSOCK}'); const reason = m.vsockUnavailableReason() ?? null;
console.log(JSON.stringify({ reason, cid: reason === null ? m.localCid() : null }));`;
  const out = await runChecked(process.execPath, ['--input-type=module', '-e', probe], { cwd: dir });
  return JSON.parse(out) as { reason: string | null; cid: number | null };
}

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'agentd-vsock-pnpm-'));
  const out = await runChecked('npx', ['-y', '-p', pnpmVersion, '-c', 'command -v pnpm'], { cwd: tmpdir() });
  pnpm = out.trim();
  const all = new Map(publicPackages(root).map((pkg) => [pkg.name, pkg]));
  await mkdir(join(scratch, 'tarballs'));
  for (const pkg of withInternalDependencies(VSOCK, all)) {
    const report = await runChecked(
      pnpm,
      ['pack', '--json', '--pack-destination', join(scratch, 'tarballs')],
      {
        cwd: pkg.dir,
      },
    );
    tarballs.set(pkg.name, resolve(pkg.dir, (JSON.parse(report) as { filename: string }).filename));
  }
}, 120_000);

afterAll(async () => {
  if (scratch !== '' && process.env.AGENTD_KEEP_PACK !== '1')
    await rm(scratch, { recursive: true, force: true });
});

describe.runIf(process.platform === 'linux')(`${VSOCK} installed with pnpm`, () => {
  it('stops with ERR_PNPM_IGNORED_BUILDS until the build is approved', async () => {
    const result = await project('unapproved', undefined);
    expect(result.code).not.toBe(0);
    expect(result.output).toContain('ERR_PNPM_IGNORED_BUILDS');
    expect(result.output).toContain(VSOCK);
  }, 60_000);

  it('builds the addon once allowBuilds approves it, and the addon loads', async () => {
    const result = await project('approved', true);
    expect(result.code, result.output).toBe(0);
    const state = await vsockState(result.dir);
    expect(state.reason).toBeNull();
    expect(typeof state.cid).toBe('number');
  }, 120_000);

  it('installs without building when declined, and the package says how to allow the build', async () => {
    const result = await project('declined', false);
    expect(result.code, result.output).toBe(0);
    const state = await vsockState(result.dir);
    expect(state.reason).toContain(
      'its install script did not run: with pnpm, allow it (pnpm approve-builds)',
    );
  }, 60_000);
});

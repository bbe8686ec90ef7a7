/**
 * @agentd/transport-vsock installed with the pinned pnpm from its packed tarball, as a user would:
 * it has no install script (its addons are prebuilt), so pnpm installs it without asking for a
 * build approval (no ERR_PNPM_IGNORED_BUILDS, no allowBuilds entry) and the prebuilt addon loads.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { arch, tmpdir } from 'node:os';
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

let scratch = '';
let pnpm = '';
const tarballs = new Map<string, string>();

/** A pnpm project depending on the vsock tarball, with no allowBuilds entry. */
async function project(name: string) {
  const dir = join(scratch, name);
  await mkdir(dir);
  // Relative specs, as a project next to its tarballs would write them.
  const spec = (file: string) => `file:../tarballs/${basename(file)}`;
  const vsock = spec(tarballs.get(VSOCK) ?? '');
  const manifest = { name, private: true, type: 'module', dependencies: { [VSOCK]: vsock } };
  await writeFile(join(dir, 'package.json'), JSON.stringify(manifest, null, 2));
  const lines = ['overrides:', ...[...tarballs].map(([pkg, file]) => `  '${pkg}': '${spec(file)}'`)];
  await writeFile(join(dir, 'pnpm-workspace.yaml'), `${lines.join('\n')}\n`);
  const result = await runCommand(pnpm, ['install', '--prefer-offline'], {
    cwd: dir,
    env: cleanEnv({ CI: 'true' }),
  });
  return { dir, ...result, output: result.stdout + result.stderr };
}

interface VsockState {
  reason: string | null;
  info: { file: string; kind: string } | null;
  cid: number | null;
}

async function vsockState(dir: string): Promise<VsockState> {
  const probe = `const m = await import('${VSOCK}'); const reason = m.vsockUnavailableReason() ?? null;
console.log(JSON.stringify({ reason, info: m.vsockAddonInfo() ?? null, cid: reason === null ? m.localCid() : null }));`;
  const out = await runChecked(process.execPath, ['--input-type=module', '-e', probe], { cwd: dir });
  return JSON.parse(out) as VsockState;
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

/** The prebuilt addons a release must carry (the build makes all three under CI=true). */
const RELEASE_PREBUILDS = [
  'prebuilds/linux-arm64/agentd_vsock.napi.glibc.node',
  'prebuilds/linux-x64/agentd_vsock.napi.glibc.node',
  'prebuilds/linux-x64/agentd_vsock.napi.musl.node',
];

/** The prebuilt addons this build made, as paths inside the package. */
function builtPrebuilds(dir: string): string[] {
  const prebuilds = join(dir, 'prebuilds');
  if (!existsSync(prebuilds)) return [];
  return readdirSync(prebuilds).flatMap((tuple) =>
    readdirSync(join(prebuilds, tuple)).map((file) => `prebuilds/${tuple}/${file}`),
  );
}

describe.runIf(process.platform === 'linux')(`${VSOCK} packed`, () => {
  it('carries every prebuilt addon the build made (all three under CI=true), and no build leftovers', async () => {
    const pkg = publicPackages(root).find((p) => p.name === VSOCK);
    const listing = await runChecked('tar', ['-tzf', tarballs.get(VSOCK) ?? ''], { cwd: scratch });
    const files = listing
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => line.replace(/^package\//, ''));
    const built = builtPrebuilds(pkg?.dir ?? '');
    expect(built).toContain(`prebuilds/linux-${arch()}/agentd_vsock.napi.glibc.node`);
    if (process.env.CI === 'true') expect(built.sort()).toEqual(RELEASE_PREBUILDS);
    expect(files.filter((file) => file.startsWith('prebuilds/')).sort()).toEqual(built.sort());
    expect(files).toEqual(
      expect.arrayContaining(['native/vsock.c', 'native/uv-stable.h', 'scripts/build-addon.mjs']),
    );
    expect(files.filter((file) => file.startsWith('build/') || file === 'binding.gyp')).toEqual([]);
  });
});

describe.runIf(process.platform === 'linux')(`${VSOCK} installed with pnpm`, () => {
  it('installs without a build approval, and the prebuilt addon loads', async () => {
    const result = await project('plain');
    expect(result.code, result.output).toBe(0);
    expect(result.output).not.toContain('ERR_PNPM_IGNORED_BUILDS');
    expect(result.output).not.toMatch(/approve-builds|Ignored build scripts/i);
    const state = await vsockState(result.dir);
    expect(state.reason).toBeNull();
    expect(state.info?.kind).toBe('prebuilt');
    expect(state.info?.file).toMatch(
      new RegExp(`/prebuilds/linux-${arch()}/agentd_vsock\\.napi\\.glibc\\.node$`),
    );
    expect(typeof state.cid).toBe('number');
  }, 120_000);
});

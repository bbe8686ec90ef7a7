/**
 * The install script when the addon cannot be built: it fails the install by default with the
 * reason and the way out on stderr (npm shows a failing script's output, and only then), or, when
 * told so, installs without the addon, whose absence the package then reports at runtime.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const packageRoot = fileURLToPath(new URL('..', import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), 'vsock-install-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A fresh copy of what the tarball holds (sources of the addon, the script, the built JS). */
function freshPackage(): string {
  const root = mkdtempSync(join(scratch, 'pkg-'));
  for (const part of ['package.json', 'binding.gyp', 'native', 'scripts', 'dist'])
    cpSync(join(packageRoot, part), join(root, part), { recursive: true });
  symlinkSync(join(packageRoot, 'node_modules'), join(root, 'node_modules'));
  return root;
}

/**
 * Node headers for the build: the running Node's own, else the machine's Node (the Node 24 run
 * uses the npm `node` package, which ships none); the build must get as far as the compiler.
 */
const nodedir = [dirname(dirname(process.execPath)), '/usr', '/usr/local'].find((dir) =>
  existsSync(join(dir, 'include', 'node', 'node_api.h')),
);

/** npm's node-gyp, which npm hands to install scripts as npm_config_node_gyp. */
const nodeGyp = [dirname(dirname(process.execPath)), '/usr', '/usr/local']
  .map((prefix) => join(prefix, 'lib/node_modules/npm/node_modules/node-gyp/bin/node-gyp.js'))
  .find((file) => existsSync(file));

/** Runs the install script as a package manager would, with a C compiler that always fails. */
function install(root: string, env: Record<string, string> = {}) {
  if (nodedir === undefined) throw new Error('no Node headers on this machine (include/node/node_api.h)');
  if (nodeGyp === undefined) throw new Error("no npm's node-gyp on this machine");
  // As npm runs it: npm's own variables replaced by the two the script reads, and no node-gyp
  // shim on PATH (npx adds npm's, which needs the rest of npm's environment).
  const base = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key)));
  base.PATH = (process.env.PATH ?? '')
    .split(':')
    .filter((dir) => !dir.endsWith('node-gyp-bin'))
    .join(':');
  const result = spawnSync(process.execPath, ['scripts/install.mjs'], {
    cwd: root,
    encoding: 'utf8',
    env: { ...base, CC: '/bin/false', npm_config_nodedir: nodedir, npm_config_node_gyp: nodeGyp, ...env },
  });
  const recorded = join(root, 'build', 'install-error.txt');
  return {
    status: result.status,
    stderr: result.stderr,
    recorded: existsSync(recorded) ? readFileSync(recorded, 'utf8').trim() : undefined,
  };
}

function runtimeReason(root: string): string {
  const probe = `const m = await import(${JSON.stringify(join(root, 'dist/index.js'))}); console.log(m.vsockUnavailableReason());`;
  const result = spawnSync(process.execPath, ['--input-type=module', '-e', probe], { encoding: 'utf8' });
  return result.stdout.trim();
}

describe.runIf(process.platform === 'linux')('the vsock install script with a broken compiler', () => {
  it('fails the install, saying on stderr why the addon was not built and how to install without it', () => {
    const result = install(freshPackage());
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(
      '@agentd/transport-vsock: the native vsock addon was NOT built: node-gyp rebuild failed (exit',
    );
    expect(result.stderr).toMatch(/It needs a C compiler \(cc\), make, python3 and Node headers/);
    expect(result.stderr).toContain('AGENTD_VSOCK_BUILD=optional');
    expect(result.stderr).toContain('AGENTD_VSOCK_BUILD=skip');
    // The summary is the last thing printed, below the compiler's output.
    expect(result.stderr.trimEnd().split('\n').at(-1)).toContain('AGENTD_VSOCK_BUILD=optional npm install');
  });

  it('with AGENTD_VSOCK_BUILD=optional installs without the addon, and the package reports why', () => {
    const root = freshPackage();
    const result = install(root, { AGENTD_VSOCK_BUILD: 'optional' });
    expect(result.status).toBe(0);
    expect(result.stderr).toContain('was NOT built: node-gyp rebuild failed');
    expect(result.stderr).toContain('Installed without it (AGENTD_VSOCK_BUILD=optional)');
    expect(result.recorded).toMatch(/^node-gyp rebuild failed \(exit \d+\)$/);
    expect(runtimeReason(root)).toMatch(
      /^the native addon is not built \(node-gyp rebuild failed \(exit \d+\)\)/,
    );
  });

  it('with AGENTD_VSOCK_BUILD=skip does not try, and the package reports that it was skipped', () => {
    const root = freshPackage();
    const result = install(root, { AGENTD_VSOCK_BUILD: 'skip' });
    expect(result.status).toBe(0);
    expect(result.stderr).toContain('native addon build skipped (AGENTD_VSOCK_BUILD=skip)');
    expect(result.stderr).not.toContain('gyp');
    expect(existsSync(join(root, 'build', 'Makefile'))).toBe(false);
    expect(runtimeReason(root)).toContain('the build was skipped at install (AGENTD_VSOCK_BUILD=skip)');
  });

  it('without any install run (pnpm before the build is approved), the package says how to allow it', () => {
    expect(runtimeReason(freshPackage())).toMatch(
      /^the native addon is not built \(Cannot find module .*\); its install script did not run: with pnpm, allow it \(pnpm approve-builds\)/,
    );
  });

  it('refuses an unknown AGENTD_VSOCK_BUILD value', () => {
    const result = install(freshPackage(), { AGENTD_VSOCK_BUILD: 'sometimes' });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('AGENTD_VSOCK_BUILD must be "required", "optional" or "skip"');
  });
});

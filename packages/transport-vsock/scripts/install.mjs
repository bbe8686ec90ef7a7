// Builds the native addon from source at install time, offline, against the running Node's headers.
// It never downloads anything: without local headers it records why and the package loads in its
// "unavailable" mode (every call fails with that reason). AGENTD_VSOCK_REQUIRE_BUILD=1 makes a
// failed build fail the install instead. An addon that is newer than its sources and loads is kept
// (re-installs are instant and never pull the addon from under a running process);
// AGENTD_VSOCK_REBUILD=1 forces a rebuild.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const errorFile = join(root, 'build', 'install-error.txt');
const strict = process.env.AGENTD_VSOCK_REQUIRE_BUILD === '1';

function giveUp(reason) {
  mkdirSync(dirname(errorFile), { recursive: true });
  writeFileSync(errorFile, `${reason}\n`);
  console.warn(`@agentd/transport-vsock: native addon not built: ${reason}`);
  process.exit(strict ? 1 : 0);
}

/** A directory holding include/node/node_api.h: npm's nodedir, else the running Node's prefix. */
function findNodeDir() {
  const candidates = [process.env.npm_config_nodedir, dirname(dirname(process.execPath))];
  for (const dir of candidates) {
    if (dir && existsSync(join(dir, 'include', 'node', 'node_api.h'))) return dir;
  }
  return undefined;
}

/** node-gyp as the package manager provides it (npm: npm_config_node_gyp; pnpm: on PATH), else npm's copy. */
function nodeGypCommand() {
  const npmCopy = join(
    dirname(dirname(process.execPath)),
    'lib',
    'node_modules',
    'npm',
    'node_modules',
    'node-gyp',
    'bin',
    'node-gyp.js',
  );
  const script = process.env.npm_config_node_gyp;
  if (script && existsSync(script)) return [process.execPath, [script]];
  const onPath = spawnSync('node-gyp', ['--version'], { stdio: 'ignore' });
  if (onPath.error === undefined && onPath.status === 0) return ['node-gyp', []];
  if (existsSync(npmCopy)) return [process.execPath, [npmCopy]];
  return ['node-gyp', []];
}

/** True when the built addon is newer than every source and loads in this Node. */
function upToDate() {
  const addon = join(root, 'build', 'Release', 'agentd_vsock.node');
  if (process.env.AGENTD_VSOCK_REBUILD === '1' || !existsSync(addon)) return false;
  const built = statSync(addon).mtimeMs;
  if (['binding.gyp', 'native/vsock.c'].some((source) => statSync(join(root, source)).mtimeMs > built))
    return false;
  try {
    createRequire(import.meta.url)(addon);
    return true;
  } catch {
    return false;
  }
}

if (process.platform !== 'linux')
  giveUp(`AF_VSOCK is only available on Linux (this platform is ${process.platform})`);

const nodedir = findNodeDir();
if (nodedir === undefined) {
  giveUp(
    `no local Node headers (include/node/node_api.h) next to ${process.execPath}; set npm_config_nodedir to a Node source or headers directory`,
  );
}

if (upToDate()) {
  console.log('@agentd/transport-vsock: native addon is up to date');
  process.exit(0);
}

rmSync(errorFile, { force: true });
const [command, prefix] = nodeGypCommand();
const result = spawnSync(command, [...prefix, 'rebuild', `--nodedir=${nodedir}`], {
  cwd: root,
  stdio: 'inherit',
  env: { ...process.env, npm_config_nodedir: nodedir },
});
if (result.error !== undefined) giveUp(`could not run node-gyp: ${result.error.message}`);
if (result.status !== 0)
  giveUp(`node-gyp rebuild failed (exit ${result.status}); see the build output above`);

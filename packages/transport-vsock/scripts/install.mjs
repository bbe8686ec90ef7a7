// Builds the native addon from source at install time, offline, against the running Node's headers.
// It never downloads anything: without local headers it records why and the package loads in its
// "unavailable" mode (every call fails with that reason). AGENTD_VSOCK_REQUIRE_BUILD=1 makes a
// failed build fail the install instead.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
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

if (process.platform !== 'linux')
  giveUp(`AF_VSOCK is only available on Linux (this platform is ${process.platform})`);

const nodedir = findNodeDir();
if (nodedir === undefined) {
  giveUp(
    `no local Node headers (include/node/node_api.h) next to ${process.execPath}; set npm_config_nodedir to a Node source or headers directory`,
  );
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

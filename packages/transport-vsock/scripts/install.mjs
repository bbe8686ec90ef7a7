// Builds the native addon from source at install time, offline, against the running Node's headers.
// It never downloads anything. When the addon cannot be built, the install FAILS by default with the
// reason and the way out on stderr: npm shows an install script's output only when it fails, so a
// build that "fails softly" would be silent. AGENTD_VSOCK_BUILD chooses otherwise:
//   optional  try to build; if that fails, say why and install without the addon
//   skip      do not try (the package installs without the addon)
// Without the addon the package still imports and every vsock call throws vsock_unavailable with the
// reason recorded here (build/install-error.txt). Off Linux there is nothing to build and the
// install succeeds. An addon that is newer than its sources and loads is kept (re-installs are
// instant and never pull the addon from under a running process); AGENTD_VSOCK_REBUILD=1 forces a
// rebuild.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const NAME = '@agentd/transport-vsock';
const root = dirname(dirname(fileURLToPath(import.meta.url)));
const errorFile = join(root, 'build', 'install-error.txt');
const mode = (process.env.AGENTD_VSOCK_BUILD ?? 'required').trim().toLowerCase();

if (!['required', 'optional', 'skip'].includes(mode)) {
  console.error(`${NAME}: AGENTD_VSOCK_BUILD must be "required", "optional" or "skip" (it is "${mode}")`);
  process.exit(1);
}

function record(reason) {
  mkdirSync(dirname(errorFile), { recursive: true });
  writeFileSync(errorFile, `${reason}\n`);
}

/** Not built: records why (the runtime reports it) and explains on stderr; fails unless optional. */
function notBuilt(reason, hint) {
  record(reason);
  const optional = mode === 'optional';
  const lines = [
    '',
    `${NAME}: the native vsock addon was NOT built: ${reason}`,
    ...(hint === undefined ? [] : [`  ${hint}`]),
    optional
      ? '  Installed without it (AGENTD_VSOCK_BUILD=optional): every vsock call throws vsock_unavailable with this reason.'
      : '  To install without vsock support (every vsock call then throws vsock_unavailable with this reason),',
    ...(optional
      ? []
      : [
          '  set AGENTD_VSOCK_BUILD=optional (try to build, continue without it) or AGENTD_VSOCK_BUILD=skip (do not try),',
          '  e.g. `AGENTD_VSOCK_BUILD=optional npm install`.',
        ]),
    '',
  ];
  console.error(lines.join('\n'));
  process.exit(optional ? 0 : 1);
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

if (process.platform !== 'linux') {
  // Not a failure: vsock is Linux-only, and the package says so at runtime.
  record(`AF_VSOCK is only available on Linux (this platform is ${process.platform})`);
  console.error(`${NAME}: nothing to build on ${process.platform} (AF_VSOCK is Linux-only)`);
  process.exit(0);
}

if (mode === 'skip') {
  record('the build was skipped at install (AGENTD_VSOCK_BUILD=skip)');
  console.error(`${NAME}: native addon build skipped (AGENTD_VSOCK_BUILD=skip); vsock calls will throw`);
  process.exit(0);
}

const nodedir = findNodeDir();
if (nodedir === undefined) {
  notBuilt(
    `no local Node headers (include/node/node_api.h) next to ${process.execPath}`,
    'Set npm_config_nodedir to a Node source or headers directory (nothing is downloaded).',
  );
}

if (upToDate()) {
  console.log(`${NAME}: native addon is up to date`);
  process.exit(0);
}

rmSync(errorFile, { force: true });
const [command, prefix] = nodeGypCommand();
const result = spawnSync(command, [...prefix, 'rebuild', `--nodedir=${nodedir}`], {
  cwd: root,
  // The compiler's output goes to stderr: npm shows it, with the summary below, when the install fails.
  stdio: ['ignore', 2, 2],
  env: { ...process.env, npm_config_nodedir: nodedir },
});
const needs = `The build output is above. It needs a C compiler (cc), make, python3 and Node headers (from ${nodedir}).`;
if (result.error !== undefined) notBuilt(`could not run node-gyp: ${result.error.message}`, needs);
if (result.status !== 0) notBuilt(`node-gyp rebuild failed (exit ${result.status})`, needs);

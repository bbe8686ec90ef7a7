// The prebuilt addons the package ships (prebuildify's layout, loaded by node-gyp-build):
//   prebuilds/linux-x64/agentd_vsock.napi.glibc.node     the host's cc (x64) or x86_64-linux-gnu-gcc
//   prebuilds/linux-arm64/agentd_vsock.napi.glibc.node   aarch64-linux-gnu-gcc (Debian: gcc-aarch64-linux-gnu)
//   prebuilds/linux-x64/agentd_vsock.napi.musl.node      musl-gcc (Debian: musl-tools) on an x64 host
// Node-API is ABI-stable, so one file per platform serves Node 20, 22 and 24. Run by the package's
// build script; not shipped. A missing compiler (the host's cc or a cross compiler) is one loud
// line naming the apt package, and fails the build under CI=true, where .ci/run installs them all,
// so a released tarball always carries all three; a developer's machine without the cross
// compilers still builds (and tests) the host's addon. A compiler that fails always fails the build.
// AGENTD_VSOCK_PREBUILDS=host builds only the host's one, quietly (a quick local build).
import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readSync, rmSync, statSync } from 'node:fs';
import { arch } from 'node:os';
import { join } from 'node:path';
import { compileAddon, kernelHeadersDir, packageRoot } from './compile-addon.mjs';

const NAME = '@agentd/transport-vsock';
/** e_machine in the ELF header, and what `file` calls it. */
const MACHINES = {
  x64: { elf: 0x3e, file: 'x86-64', triple: 'x86_64-linux-gnu' },
  arm64: { elf: 0xb7, file: 'ARM aarch64', triple: 'aarch64-linux-gnu' },
};
const TARGETS = [
  { arch: 'x64', libc: 'glibc', apt: 'gcc-x86-64-linux-gnu' },
  { arch: 'arm64', libc: 'glibc', apt: 'gcc-aarch64-linux-gnu' },
  { arch: 'x64', libc: 'musl', apt: 'musl-tools' },
];
const SOURCES = [
  'native/vsock.c',
  'native/uv-stable.h',
  'scripts/compile-addon.mjs',
  'scripts/build-prebuilds.mjs',
];
const hostArch = arch();
const onlyHost = process.env.AGENTD_VSOCK_PREBUILDS === 'host';
const ci = process.env.CI === 'true' || process.env.CI === '1';

function onPath(command) {
  const found = spawnSync(command, ['--version'], { stdio: 'ignore' });
  return found.error === undefined && found.status === 0;
}

/** The compiler (and flags) for a target on this machine, or undefined when it has none. */
function compilerFor(target) {
  const host = target.arch === hostArch;
  const { triple } = MACHINES[target.arch];
  if (target.libc === 'glibc') {
    const candidates = host ? [process.env.CC || 'cc', `${triple}-gcc`] : [`${triple}-gcc`];
    const cc = candidates.find(onPath);
    return cc === undefined ? undefined : { cc, extraFlags: [] };
  }
  // Debian's musl-gcc targets the host and ships no kernel headers: link the machine's uapi ones.
  if (!host || !onPath('musl-gcc')) return undefined;
  return { cc: 'musl-gcc', extraFlags: ['-idirafter', kernelHeadersDir(triple)] };
}

/** Reads the ELF header: an ELF64 little-endian shared object for the target's machine, or why not. */
function checkElf(file, target) {
  const header = Buffer.alloc(20);
  const fd = openSync(file, 'r');
  readSync(fd, header, 0, 20, 0);
  closeSync(fd);
  const elf = header.readUInt32BE(0) === 0x7f454c46 && header[4] === 2 && header[5] === 1;
  if (!elf || header.readUInt16LE(16) !== 3) return 'not an ELF64 little-endian shared object';
  if (header.readUInt16LE(18) !== MACHINES[target.arch].elf) return `not built for ${target.arch}`;
  // `file`, where installed, says the same in words (printed for the build log).
  const described = spawnSync('file', ['-b', file], { encoding: 'utf8' });
  if (described.status === 0) {
    const text = described.stdout.trim();
    if (!text.includes(MACHINES[target.arch].file) || !text.includes('shared object'))
      return `file(1) says: ${text}`;
  }
  return target.libc === 'glibc' ? checkGlibcFloor(file) : undefined;
}

/** Node 20's own glibc floor: a prebuilt addon must not need newer glibc symbols than Node does. */
const GLIBC_FLOOR = [2, 28];

/** Why the addon needs a newer glibc than GLIBC_FLOOR, if it does (read with objdump, where installed). */
function checkGlibcFloor(file) {
  const dump = spawnSync('objdump', ['-T', file], { encoding: 'utf8' });
  if (dump.status !== 0) return undefined;
  for (const [, major, minor] of dump.stdout.matchAll(/GLIBC_(\d+)\.(\d+)/g)) {
    const [floorMajor, floorMinor] = GLIBC_FLOOR;
    if (Number(major) > floorMajor || (Number(major) === floorMajor && Number(minor) > floorMinor))
      return `it needs GLIBC_${major}.${minor}, newer than Node 20's floor of ${GLIBC_FLOOR.join('.')}`;
  }
  return undefined;
}

function upToDate(out) {
  if (!existsSync(out)) return false;
  const built = statSync(out).mtimeMs;
  return SOURCES.every((source) => statSync(join(packageRoot, source)).mtimeMs <= built);
}

if (process.platform !== 'linux') {
  console.error(
    `${NAME}: no prebuilt addons made on ${process.platform} (they are Linux addons, built on Linux)`,
  );
  process.exit(0);
}

const missing = [];
let failed = false;
for (const target of TARGETS) {
  const host = target.arch === hostArch && target.libc === 'glibc';
  if (onlyHost && !host) continue;
  const tuple = `linux-${target.arch}`;
  const out = join(packageRoot, 'prebuilds', tuple, `agentd_vsock.napi.${target.libc}.node`);
  if (upToDate(out)) continue;
  const compiler = compilerFor(target);
  if (compiler === undefined) {
    rmSync(out, { force: true });
    missing.push(
      `${tuple} ${target.libc} (${host ? 'cc: apt-get install gcc' : `apt-get install ${target.apt}`})`,
    );
    continue;
  }
  mkdirSync(join(packageRoot, 'prebuilds', tuple), { recursive: true });
  // Stripped: the tarball carries three of them.
  const failure =
    (await compileAddon({ ...compiler, extraFlags: [...compiler.extraFlags, '-s'], out })) ??
    checkElf(out, target);
  if (failure !== undefined) {
    rmSync(out, { force: true });
    console.error(
      `${NAME}: FAILED to build the ${tuple} ${target.libc} addon with ${compiler.cc}: ${failure}`,
    );
    failed = true;
  }
}
if (missing.length > 0) {
  console.error(
    `${NAME}: ${ci ? 'FAILED' : 'WARNING'}: no compiler for ${missing.join(', ')}: those prebuilt addons are NOT in this build${ci ? ' (CI=true needs every one)' : "; once installed, rebuild past turbo's cache: pnpm turbo run build --force"}`,
  );
  if (ci) failed = true;
}
if (failed) process.exit(1);

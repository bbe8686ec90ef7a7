// Compiles native/vsock.c into one addon file: a single C file, so a C compiler is all it takes
// (no node-gyp, make or python3). Headers come from the npm package node-api-headers (Node
// binaries from npm and version managers ship none) plus native/uv-stable.h; nothing is downloaded.
// Used by scripts/build-addon.mjs (a source build on the user's machine) and, in the agentd
// repository, by the build that makes the prebuilt addons.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, symlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const packageRoot = dirname(dirname(fileURLToPath(import.meta.url)));

/** The directory holding node_api.h: node-api-headers, else the running Node's own headers. */
async function nodeApiIncludeDir() {
  try {
    const { default: headers } = await import('node-api-headers');
    if (existsSync(join(headers.include_dir, 'node_api.h'))) return headers.include_dir;
  } catch {
    // Not installed (an unusual layout): fall back to the running Node's headers, if it has them.
  }
  const own = join(dirname(dirname(process.execPath)), 'include', 'node');
  return existsSync(join(own, 'node_api.h')) ? own : undefined;
}

/**
 * Linux's uapi headers (linux/vm_sockets.h) for a compiler whose libc ships none, as Debian's
 * musl-gcc: a directory of links to the machine's own, searched after the compiler's.
 */
export function kernelHeadersDir(multiarch) {
  const dir = join(packageRoot, 'build', 'kernel-headers', multiarch);
  mkdirSync(dir, { recursive: true });
  const links = {
    linux: '/usr/include/linux',
    'asm-generic': '/usr/include/asm-generic',
    asm: `/usr/include/${multiarch}/asm`,
  };
  for (const [name, target] of Object.entries(links)) {
    if (!existsSync(join(dir, name)) && existsSync(target)) symlinkSync(target, join(dir, name));
  }
  return dir;
}

/**
 * Runs `cc` on native/vsock.c, writing `out`. Returns undefined on success, else why it failed
 * (the compiler's own output included).
 */
export async function compileAddon({ cc, out, extraFlags = [], env = process.env }) {
  const include = await nodeApiIncludeDir();
  if (include === undefined) {
    return "no Node-API headers: neither the npm package node-api-headers nor the running Node's include/node";
  }
  mkdirSync(dirname(out), { recursive: true });
  const args = [
    '-std=gnu11',
    '-O2',
    '-Wall',
    '-Wextra',
    '-Werror=implicit-function-declaration',
    '-fvisibility=hidden',
    '-fPIC',
    '-shared',
    '-DNAPI_VERSION=8',
    `-I${include}`,
    ...extraFlags,
    join(packageRoot, 'native', 'vsock.c'),
    '-o',
    out,
  ];
  const result = spawnSync(cc, args, { encoding: 'utf8', env });
  if (result.error !== undefined) return `cannot run ${cc}: ${result.error.message}`;
  if (result.status !== 0) return `${cc} failed (exit ${result.status}):\n${result.stderr.trim()}`;
  return undefined;
}

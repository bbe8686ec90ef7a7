/**
 * How the built package picks its addon, and what it says when none fits: a matching prebuilt
 * addon loads; a source build (scripts/build-addon.mjs) wins over it; with no addon for the
 * machine, or one that does not load, the package still imports and every call says why.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { arch, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const packageRoot = fileURLToPath(new URL('..', import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), 'vsock-unavailable-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A copy of what the tarball holds; `prebuilds: false` leaves the prebuilt addons out. */
function packageCopy({ prebuilds }: { prebuilds: boolean }): string {
  const root = mkdtempSync(join(scratch, 'pkg-'));
  for (const part of ['dist', 'native', 'scripts', 'package.json', ...(prebuilds ? ['prebuilds'] : [])])
    cpSync(join(packageRoot, part), join(root, part), { recursive: true });
  symlinkSync(join(packageRoot, 'node_modules'), join(root, 'node_modules'));
  return root;
}

const PROBE = `
const m = await import(process.argv[1] + '/dist/index.js');
const out = { reason: m.vsockUnavailableReason() ?? null, info: m.vsockAddonInfo() ?? null, parsed: m.parseVsockAddress('vsock:2:5000'), errors: [] };
// With an addon, only the call that needs no peer: the local CID ioctl (-1 without /dev/vsock).
if (out.info !== null) out.cid = m.localCid();
else for (const call of [() => m.bindVsock({ port: 5005 }), () => m.connectVsock(2, 5005), () => m.localCid()]) {
  try { call(); out.errors.push(null); } catch (e) { out.errors.push({ name: e.name, code: e.code, message: e.message }); }
}
console.log(JSON.stringify(out));
`;

interface ProbeResult {
  reason: string | null;
  info: { file: string; kind: string } | null;
  parsed: unknown;
  cid?: number;
  errors: Array<{ name: string; code: string; message: string } | null>;
}

function probe(root: string): ProbeResult {
  return JSON.parse(
    execFileSync(process.execPath, ['--input-type=module', '-e', PROBE, root], { encoding: 'utf8' }),
  );
}

const hasCc = spawnSync('cc', ['--version'], { stdio: 'ignore' }).status === 0;

describe.runIf(process.platform === 'linux')('which addon the built package loads', () => {
  it('needs the built package with its prebuilt addons (run `turbo run build` first)', () => {
    expect(existsSync(join(packageRoot, 'dist', 'index.js'))).toBe(true);
    expect(readdirSync(join(packageRoot, 'prebuilds', `linux-${arch()}`))).toContain(
      'agentd_vsock.napi.glibc.node',
    );
  });

  it('loads the prebuilt addon that matches this machine', () => {
    const root = packageCopy({ prebuilds: true });
    const result = probe(root);
    expect(result.reason).toBeNull();
    expect(result.info).toEqual({
      file: join(root, 'prebuilds', `linux-${arch()}`, 'agentd_vsock.napi.glibc.node'),
      kind: 'prebuilt',
    });
  });

  it.runIf(hasCc)('prefers a source build (scripts/build-addon.mjs) over the prebuilt addon', () => {
    const root = packageCopy({ prebuilds: true });
    execFileSync(process.execPath, [join(root, 'scripts', 'build-addon.mjs')], { encoding: 'utf8' });
    const result = probe(root);
    expect(result.reason).toBeNull();
    expect(result.info).toEqual({
      file: join(root, 'build', 'Release', 'agentd_vsock.node'),
      kind: 'source',
    });
    // A working addon: its ioctl answers.
    expect(typeof result.cid).toBe('number');
  });

  it('with no addon for this machine: imports, parses, and every call fails naming the reason and the way out', () => {
    const result = probe(packageCopy({ prebuilds: false }));
    expect(result.info).toBeNull();
    expect(result.reason).toMatch(/^no prebuilt addon matches this machine \(platform=linux arch=\S+ /);
    expect(result.reason).toContain('node scripts/build-addon.mjs');
    expect(result.parsed).toEqual({ cid: 2, port: 5000 });
    expect(result.errors).toHaveLength(3);
    for (const error of result.errors) {
      expect(error).toMatchObject({ name: 'LocalError', code: 'vsock_unavailable' });
      expect(error?.message).toContain('@agentd/transport-vsock is unavailable: no prebuilt addon matches');
    }
  });

  it('with an addon that does not load: says which file and why', () => {
    const root = packageCopy({ prebuilds: false });
    mkdirSync(join(root, 'prebuilds', `linux-${arch()}`), { recursive: true });
    const file = join(root, 'prebuilds', `linux-${arch()}`, 'agentd_vsock.napi.glibc.node');
    writeFileSync(file, 'not an ELF file');
    const result = probe(root);
    expect(result.reason).toContain(`the native addon ${file} does not load (`);
    expect(result.errors[0]).toMatchObject({ code: 'vsock_unavailable' });
  });
});

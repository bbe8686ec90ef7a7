/** Without its addon (a failed build) the built package still imports, and every call says why it cannot work. */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const packageRoot = fileURLToPath(new URL('..', import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), 'vsock-unavailable-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A copy of the built package with no build/ directory, as after a failed install build. */
function packageWithoutAddon(installError?: string): string {
  const root = mkdtempSync(join(scratch, 'pkg-'));
  cpSync(join(packageRoot, 'dist'), join(root, 'dist'), { recursive: true });
  cpSync(join(packageRoot, 'package.json'), join(root, 'package.json'));
  symlinkSync(join(packageRoot, 'node_modules'), join(root, 'node_modules'));
  if (installError !== undefined) {
    mkdirSync(join(root, 'build'));
    writeFileSync(join(root, 'build', 'install-error.txt'), `${installError}\n`);
  }
  return root;
}

const PROBE = `
const m = await import(process.argv[1] + '/dist/index.js');
const out = { reason: m.vsockUnavailableReason(), parsed: m.parseVsockAddress('vsock:2:5000'), errors: [] };
for (const call of [() => m.bindVsock({ port: 5005 }), () => m.connectVsock(2, 5005), () => m.localCid()]) {
  try { call(); out.errors.push(null); } catch (e) { out.errors.push({ name: e.name, code: e.code, message: e.message }); }
}
console.log(JSON.stringify(out));
`;

function probe(root: string): {
  reason: string;
  parsed: unknown;
  errors: Array<{ name: string; code: string; message: string } | null>;
} {
  return JSON.parse(
    execFileSync(process.execPath, ['--input-type=module', '-e', PROBE, root], { encoding: 'utf8' }),
  );
}

describe('the package without its native addon', () => {
  it('needs the built package (run `turbo run build` first)', () => {
    expect(existsSync(join(packageRoot, 'dist', 'index.js'))).toBe(true);
  });

  it('imports, still parses addresses, and every call fails with vsock_unavailable naming the reason', () => {
    const result = probe(packageWithoutAddon());
    expect(result.reason).toMatch(/^the native addon is not built \(Cannot find module .*agentd_vsock\.node/);
    expect(result.parsed).toEqual({ cid: 2, port: 5000 });
    expect(result.errors).toHaveLength(3);
    for (const error of result.errors) {
      expect(error).toMatchObject({ name: 'LocalError', code: 'vsock_unavailable' });
      expect(error?.message).toContain(
        '@agentd/transport-vsock is unavailable: the native addon is not built',
      );
    }
  });

  it("reports the install script's recorded reason when the build failed", () => {
    const result = probe(packageWithoutAddon('node-gyp rebuild failed (exit 1); see the build output above'));
    expect(result.reason).toBe(
      'the native addon is not built (node-gyp rebuild failed (exit 1); see the build output above); reinstall the package',
    );
    expect(result.errors[0]?.message).toContain('node-gyp rebuild failed');
  });
});

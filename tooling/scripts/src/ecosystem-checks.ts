/**
 * The ecosystem's own package checkers, run on a packed tarball exactly as it would be published:
 * publint (manifest and file layout) and Are The Types Wrong (types resolution per consumer mode).
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { publint } from 'publint';
import { formatMessage } from 'publint/utils';
import { runCommand } from './run-command.js';

/** publint's errors and warnings (suggestions are advice, not defects), formatted for a reader. */
export async function publintFindings(tarball: string): Promise<string[]> {
  const bytes = await readFile(tarball);
  const data = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  const { messages, pkg } = await publint({ pack: { tarball: data }, level: 'warning' });
  return messages.map(
    (message) => `${message.type}: ${formatMessage(message, pkg, { color: false }) ?? message.code}`,
  );
}

const attwBin = join(
  dirname(createRequire(import.meta.url).resolve('@arethetypeswrong/cli/package.json')),
  'dist/index.js',
);

/**
 * attw's verdict under the `esm-only` profile: the packages are ESM-only by design (`"type":
 * "module"`, only an `import`/`default` condition, Node >= 20), so the two resolution modes that
 * cannot load them by definition are not defects: `node10` (no `exports` support at all) and
 * `node16` from CommonJS (a CJS file reaches them through `import()`, which attw reports as
 * "ESM (dynamic import only)"). Every other mode (node16 from ESM, bundler) must be clean.
 * Empty when attw exits 0; otherwise its table.
 */
export async function attwFindings(tarball: string): Promise<string[]> {
  const result = await runCommand(
    process.execPath,
    [attwBin, tarball, '--profile', 'esm-only', '--format', 'ascii', '--no-color'],
    { cwd: dirname(tarball) },
  );
  return result.code === 0 ? [] : [`attw exited ${result.code}`, result.stdout, result.stderr];
}

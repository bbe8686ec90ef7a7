/**
 * The workspace's test code, for the checks that read it: test files (`*.test.ts`, `*.test-d.ts`,
 * `*.test.mts`), every file under an app's `test/` directory, and test helpers (`src/test-support/`
 * folders and the `tooling/test-support` package). TypeScript only; `.mjs` child-process fixtures are
 * programs the tests run, not tests.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';

const SKIPPED_DIRS = new Set(['node_modules', 'dist', '.turbo', '.git', 'coverage']);

/** Whether a `/`-separated workspace path is test code (a test file, an app's `test/`, a test helper). */
export function isTestCode(path: string): boolean {
  if (!/\.(?:ts|mts|cts)$/.test(path) || path.endsWith('.d.ts')) return false;
  return (
    /\.test(?:-d)?\.[mc]?ts$/.test(path) ||
    /^apps\/[^/]+\/test\//.test(path) ||
    /(?:^|\/)src\/test-support\//.test(path) ||
    path.startsWith('tooling/test-support/')
  );
}

/** Test code under `root`'s apps, packages, tooling and examples, as sorted `/`-separated relative paths. */
export function testFiles(root: string): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.isDirectory()) {
        if (!SKIPPED_DIRS.has(entry.name)) walk(join(dir, entry.name));
        continue;
      }
      const path = relative(root, join(dir, entry.name)).split('\\').join('/');
      if (isTestCode(path)) found.push(path);
    }
  };
  for (const top of ['apps', 'packages', 'tooling', 'examples']) {
    if (existsSync(join(root, top))) walk(join(root, top));
  }
  return found.sort();
}

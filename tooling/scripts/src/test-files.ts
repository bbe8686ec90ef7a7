/**
 * The workspace's test code, for the checks that read it: test files (`*.test.ts`, `*.test-d.ts`,
 * `*.test.mts`), every file under an app's `test/` directory, and test helpers (`src/test-support/`
 * folders and the `tooling/test-support` package). TypeScript only; `.mjs` child-process fixtures are
 * programs the tests run, not tests.
 */
import { workspaceFiles } from './workspace-files.js';

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
  return workspaceFiles(root, ['apps', 'packages', 'tooling', 'examples'], isTestCode);
}

/**
 * Finds test code reaching into another package's `src/test-support/` (issue 25): shared test
 * helpers live in `@agentd/test-support` (tooling/test-support), so a package's own test-support
 * stays private to that package and can change with it.
 */
import { dirname, posix } from 'node:path';

export interface ForeignUse {
  line: number;
  /** The path or specifier as written. */
  target: string;
}

/** `packages/x/src/a.test.ts` → `packages/x`; undefined outside a workspace package folder. */
function packageDirOf(path: string): string | undefined {
  return /^((?:apps|packages|tooling|examples)\/[^/]+)\//.exec(path)?.[1];
}

/**
 * Every string in `code` (a file at workspace-relative `path`) naming a `src/test-support/` path of
 * another package: relative imports and `new URL(…, import.meta.url)` paths resolved against the
 * file, and bare `@agentd/<pkg>/src/test-support/…` specifiers.
 */
export function foreignTestSupport(path: string, code: string): ForeignUse[] {
  const own = packageDirOf(path);
  const found: ForeignUse[] = [];
  const lines = code.split('\n');
  for (const [index, text] of lines.entries()) {
    for (const match of text.matchAll(/['"`]([^'"`\n]*?\/?src\/test-support\/?)[^'"`\n]*['"`]/g)) {
      const prefix = match[1] as string;
      let target: string | undefined;
      if (prefix.startsWith('.')) {
        target = packageDirOf(posix.normalize(posix.join(dirname(path), prefix)));
      } else if (prefix.startsWith('@')) {
        target = `bare:${prefix}`;
      }
      if (target !== undefined && target !== own) {
        found.push({ line: index + 1, target: match[0].slice(1, -1) });
      }
    }
  }
  return found;
}

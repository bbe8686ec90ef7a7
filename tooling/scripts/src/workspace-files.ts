/** The workspace's own files under some top folders, as sorted `/`-separated relative paths. */
import { existsSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';

/** Folders no check reads: installs, builds and caches. */
export const SKIPPED_DIRS: ReadonlySet<string> = new Set([
  'node_modules',
  'dist',
  '.turbo',
  '.git',
  'coverage',
]);

export function workspaceFiles(
  root: string,
  tops: readonly string[],
  keep: (path: string) => boolean,
  skipped: ReadonlySet<string> = SKIPPED_DIRS,
): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.isDirectory()) {
        if (!skipped.has(entry.name)) walk(join(dir, entry.name));
        continue;
      }
      const path = relative(root, join(dir, entry.name)).split('\\').join('/');
      if (keep(path)) found.push(path);
    }
  };
  for (const top of tops) {
    if (existsSync(join(root, top))) walk(join(root, top));
  }
  return found.sort();
}

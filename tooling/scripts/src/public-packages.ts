/**
 * Discovers the workspace's publishable packages: every non-private package in a directory that
 * pnpm-workspace.yaml lists (`packages/*`, `apps/*`, …), so a package made public is checked
 * without editing any list.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

export interface PackageManifest {
  name: string;
  version: string;
  private?: boolean;
  license?: string;
  repository?: string | { type?: string; url?: string; directory?: string };
  homepage?: string;
  bugs?: string | { url?: string };
  keywords?: string[];
  engines?: Record<string, string>;
  exports?: unknown;
  bin?: string | Record<string, string>;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
}

export interface PublicPackage {
  name: string;
  dir: string;
  /** The directory relative to the workspace root, with `/` separators (`packages/server`). */
  relativeDir: string;
  manifest: PackageManifest;
}

/**
 * The `packages:` globs of pnpm-workspace.yaml. Only `dir/*` and plain directories are
 * understood; anything else throws rather than silently checking fewer packages.
 */
export function workspaceGlobs(yaml: string): string[] {
  const globs: string[] = [];
  let inPackages = false;
  for (const line of yaml.split(/\r?\n/)) {
    if (/^\S/.test(line)) inPackages = /^packages:\s*$/.test(line);
    else if (inPackages) {
      const item = /^\s+-\s+['"]?([^'"#]+?)['"]?\s*(?:#.*)?$/.exec(line);
      if (item?.[1] !== undefined) globs.push(item[1]);
    }
  }
  for (const glob of globs) {
    if (glob.startsWith('!') || glob.replace(/\/\*$/, '').includes('*'))
      throw new Error(`pnpm-workspace.yaml: unsupported package glob ${glob}`);
  }
  return globs;
}

function candidateDirs(root: string, glob: string): string[] {
  if (!glob.endsWith('/*')) return [join(root, glob)];
  const parent = join(root, glob.slice(0, -2));
  if (!existsSync(parent)) return [];
  return readdirSync(parent, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => join(parent, entry.name));
}

export function publicPackages(root: string): PublicPackage[] {
  const globs = workspaceGlobs(readFileSync(join(root, 'pnpm-workspace.yaml'), 'utf8'));
  const found: PublicPackage[] = [];
  for (const dir of globs.flatMap((glob) => candidateDirs(root, glob))) {
    const manifestPath = join(dir, 'package.json');
    if (!existsSync(manifestPath)) continue;
    const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as PackageManifest;
    if (manifest.private === true) continue;
    found.push({
      name: manifest.name,
      dir,
      relativeDir: relative(root, dir).split('\\').join('/'),
      manifest,
    });
  }
  return found.sort((a, b) => a.name.localeCompare(b.name));
}

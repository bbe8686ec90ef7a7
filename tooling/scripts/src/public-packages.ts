/** Discovers the workspace's publishable packages: every non-private packages/* with a manifest. */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface PackageManifest {
  name: string;
  version: string;
  private?: boolean;
  exports?: unknown;
  bin?: string | Record<string, string>;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
}

export interface PublicPackage {
  name: string;
  dir: string;
  manifest: PackageManifest;
}

export function publicPackages(root: string): PublicPackage[] {
  const parent = join(root, 'packages');
  const found: PublicPackage[] = [];
  for (const entry of readdirSync(parent, { withFileTypes: true })) {
    const manifestPath = join(parent, entry.name, 'package.json');
    if (!entry.isDirectory() || !existsSync(manifestPath)) continue;
    const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as PackageManifest;
    if (manifest.private === true) continue;
    found.push({ name: manifest.name, dir: join(parent, entry.name), manifest });
  }
  return found.sort((a, b) => a.name.localeCompare(b.name));
}

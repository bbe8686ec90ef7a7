/**
 * Whether every installed dependency runs on the oldest Node the packages promise: a package
 * saying `engines.node >= 20` must not pull in one that needs Node 22.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import semver from 'semver';

interface Manifest {
  name?: string;
  version?: string;
  engines?: { node?: string };
}

/** Every package directory under a node_modules tree (nested ones included, symlinks followed once). */
function packageDirs(nodeModules: string, seen = new Set<string>()): string[] {
  if (!existsSync(nodeModules) || seen.has(nodeModules)) return [];
  seen.add(nodeModules);
  const dirs: string[] = [];
  for (const entry of readdirSync(nodeModules)) {
    if (entry.startsWith('.')) continue;
    const path = join(nodeModules, entry);
    const inner = entry.startsWith('@') ? readdirSync(path).map((name) => join(path, name)) : [path];
    for (const dir of inner) {
      if (!existsSync(join(dir, 'package.json'))) continue;
      dirs.push(dir, ...packageDirs(join(dir, 'node_modules'), seen));
    }
  }
  return dirs;
}

/**
 * The installed packages whose `engines.node` excludes the lowest version `range` admits, as
 * `name@version needs <range>`; unparseable ranges are reported too.
 */
export function enginesExcluding(nodeModules: string, range: string): string[] {
  const floor = semver.minVersion(range);
  if (floor === null) return [`the packages' own engines.node ${range} is not a semver range`];
  const problems = new Set<string>();
  for (const dir of packageDirs(nodeModules)) {
    const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Manifest;
    const needs = manifest.engines?.node;
    if (needs === undefined || manifest.name === undefined) continue;
    if (semver.validRange(needs) === null)
      problems.add(`${manifest.name}@${manifest.version}: engines.node ${needs} is not a range`);
    else if (!semver.satisfies(floor, needs))
      problems.add(`${manifest.name}@${manifest.version} needs Node ${needs}, not ${floor.version}`);
  }
  return [...problems].sort();
}

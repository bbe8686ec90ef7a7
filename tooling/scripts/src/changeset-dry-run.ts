/**
 * `changeset version` in a scratch copy of the workspace: the manifests, the pending changesets
 * and the existing changelogs, nothing else, so the real repository is never touched. Shows the
 * versions and CHANGELOG entries a release would produce.
 */
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { workspaceGlobs } from './public-packages.js';
import { runChecked } from './run-command.js';

export type Bump = 'major' | 'minor' | 'patch';

export interface WorkspacePackage {
  name: string;
  version: string;
  private: boolean;
  /** Relative to the workspace root. */
  dir: string;
}

/** Every workspace package (private ones too: changesets needs the whole dependency graph). */
export function workspacePackages(root: string): WorkspacePackage[] {
  const globs = workspaceGlobs(readFileSync(join(root, 'pnpm-workspace.yaml'), 'utf8'));
  const dirs = globs.flatMap((glob) => {
    if (!glob.endsWith('/*')) return [glob];
    const parent = glob.slice(0, -2);
    if (!existsSync(join(root, parent))) return [];
    return readdirSync(join(root, parent), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => `${parent}/${entry.name}`);
  });
  return dirs
    .filter((dir) => existsSync(join(root, dir, 'package.json')))
    .map((dir) => {
      const manifest = JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8')) as {
        name: string;
        version: string;
        private?: boolean;
      };
      return { name: manifest.name, version: manifest.version, private: manifest.private === true, dir };
    });
}

/** The releases a changeset file asks for: its frontmatter's `"name": bump` lines. */
export function changesetReleases(text: string): Map<string, Bump> {
  const releases = new Map<string, Bump>();
  const frontmatter = /^---\r?\n([\s\S]*?)\r?\n---/.exec(text)?.[1] ?? '';
  for (const line of frontmatter.split(/\r?\n/)) {
    const match = /^\s*['"]?([^'":]+)['"]?\s*:\s*(major|minor|patch)\s*$/.exec(line);
    if (match?.[1] !== undefined) releases.set(match[1], match[2] as Bump);
  }
  return releases;
}

/** The pending changesets of a `.changeset` directory, by file name. */
export function pendingChangesets(changesetDir: string): Map<string, string> {
  const found = new Map<string, string>();
  for (const file of readdirSync(changesetDir)) {
    if (file.endsWith('.md') && file !== 'README.md')
      found.set(file, readFileSync(join(changesetDir, file), 'utf8'));
  }
  return found;
}

/** Copies what `changeset version` reads and writes into `scratch`. */
export function copyForVersioning(root: string, scratch: string): void {
  for (const file of ['package.json', 'pnpm-workspace.yaml']) cpSync(join(root, file), join(scratch, file));
  cpSync(join(root, '.changeset'), join(scratch, '.changeset'), { recursive: true });
  for (const pkg of workspacePackages(root)) {
    mkdirSync(join(scratch, pkg.dir), { recursive: true });
    for (const file of ['package.json', 'CHANGELOG.md']) {
      if (existsSync(join(root, pkg.dir, file)))
        cpSync(join(root, pkg.dir, file), join(scratch, pkg.dir, file));
    }
  }
}

export function addChangeset(
  scratch: string,
  name: string,
  releases: Record<string, Bump>,
  summary: string,
): void {
  const lines = Object.entries(releases).map(([pkg, bump]) => `'${pkg}': ${bump}`);
  writeFileSync(join(scratch, '.changeset', `${name}.md`), `---\n${lines.join('\n')}\n---\n\n${summary}\n`);
}

const changesetBin = join(
  dirname(createRequire(import.meta.url).resolve('@changesets/cli/package.json')),
  'bin.js',
);

/** Runs `changeset version` in the scratch copy; returns its output. */
export function versionPackages(scratch: string): Promise<string> {
  return runChecked(process.execPath, [changesetBin, 'version'], { cwd: scratch });
}

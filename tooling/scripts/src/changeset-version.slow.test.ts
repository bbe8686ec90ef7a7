/**
 * The release dry run: `changeset version` over the pending changesets in a scratch copy (the
 * repository is never touched), twice: once as the next release would run, then once more with a
 * minor change to every public package, as a later release might. No run may move a package to a
 * new major unless a changeset asks for one (0.x packages take breaking changes as minors, and a
 * peer range that a minor leaves would otherwise turn into a major), and the generated CHANGELOG
 * entries must read as release notes for users.
 */
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { changelogProblems, newestEntry } from './changelog-text.js';
import {
  addChangeset,
  type Bump,
  changesetReleases,
  copyForVersioning,
  pendingChangesets,
  versionPackages,
  type WorkspacePackage,
  workspacePackages,
} from './changeset-dry-run.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const before = workspacePackages(root);
const published = before.filter((pkg) => !pkg.private);
const pending = pendingChangesets(join(root, '.changeset'));
const asked = new Map<string, Bump[]>();
for (const text of pending.values()) {
  for (const [name, bump] of changesetReleases(text)) asked.set(name, [...(asked.get(name) ?? []), bump]);
}

let scratch = '';
let afterNext: WorkspacePackage[] = [];
let afterLater: WorkspacePackage[] = [];
const changelogs = new Map<string, string>();

const major = (version: string) => Number(version.split('.')[0]);
const byName = (list: WorkspacePackage[]) => new Map(list.map((pkg) => [pkg.name, pkg.version]));

function unintendedMajors(
  from: WorkspacePackage[],
  to: WorkspacePackage[],
  intended: (name: string) => boolean,
) {
  const next = byName(to);
  return from
    .filter((pkg) => !pkg.private && !intended(pkg.name))
    .filter((pkg) => major(next.get(pkg.name) ?? pkg.version) > major(pkg.version))
    .map((pkg) => `${pkg.name}: ${pkg.version} -> ${next.get(pkg.name)}`);
}

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'agentd-changeset-'));
  copyForVersioning(root, scratch);
  await versionPackages(scratch);
  afterNext = workspacePackages(scratch);
  for (const pkg of published) {
    const file = join(scratch, pkg.dir, 'CHANGELOG.md');
    if (existsSync(file)) changelogs.set(pkg.name, readFileSync(file, 'utf8'));
  }
  const everyMinor = Object.fromEntries(published.map((pkg) => [pkg.name, 'minor' as const]));
  addChangeset(scratch, 'dry-run-every-package-minor', everyMinor, 'A later minor release of everything.');
  await versionPackages(scratch);
  afterLater = workspacePackages(scratch);
}, 120_000);

afterAll(async () => {
  if (scratch !== '') await rm(scratch, { recursive: true, force: true });
});

describe('changeset version dry run', () => {
  it('finds the pending changesets and the published packages', () => {
    expect(published.length).toBeGreaterThan(0);
    expect(pending.size).toBeGreaterThan(0);
  });

  it('names only workspace packages that are published in its changesets', () => {
    const names = new Set(published.map((pkg) => pkg.name));
    expect([...asked.keys()].filter((name) => !names.has(name))).toEqual([]);
  });

  it('moves no package to a new major unless a changeset asks for one', () => {
    expect(
      unintendedMajors(before, afterNext, (name) => asked.get(name)?.includes('major') === true),
    ).toEqual([]);
  });

  it('still moves no package to a new major when a later release bumps every package minor', () => {
    expect(unintendedMajors(afterNext, afterLater, () => false)).toEqual([]);
  });

  it('leaves the repository untouched', () => {
    expect(pendingChangesets(join(root, '.changeset'))).toEqual(pending);
    expect(workspacePackages(root)).toEqual(before);
  });

  describe.each(published.filter((pkg) => asked.has(pkg.name)).map((pkg) => [pkg.name, pkg] as const))(
    '%s',
    (name, pkg) => {
      it('gets a CHANGELOG entry written for users', () => {
        const changelog = changelogs.get(name);
        expect(changelog, `${name}: no CHANGELOG.md written`).toBeDefined();
        const entry = newestEntry(changelog ?? '');
        expect(entry.trim()).not.toBe('');
        const firstRelease = !existsSync(join(root, pkg.dir, 'CHANGELOG.md'));
        expect(changelogProblems(entry, firstRelease), `${name}: CHANGELOG entry`).toEqual([]);
      });
    },
  );
});

/**
 * The public surface stays small: at most PUBLIC_NAME_BUDGET names across every published
 * package's export entries (issue 25). On failure it prints each package's count, largest first.
 */
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { type EntryNames, publicNames } from './public-names.js';
import { publicPackages } from './public-packages.js';

const PUBLIC_NAME_BUDGET = 300;
const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

const packages = publicPackages(root);
let entries: EntryNames[] = [];
// One compiler program for both tests: it reads every package's sources.
beforeAll(() => {
  entries = publicNames(packages);
}, 120_000);

describe('the public surface', () => {
  it(`offers at most ${PUBLIC_NAME_BUDGET} names across all packages`, () => {
    const perPackage = packages
      .map((pkg) => {
        const own = entries.filter((e) => e.specifier === pkg.name || e.specifier.startsWith(`${pkg.name}/`));
        const count = own.reduce((sum, e) => sum + e.names.length, 0);
        return {
          count,
          line: `${pkg.name} ${count} (${own.map((e) => `${e.specifier} ${e.names.length}`).join(', ')})`,
        };
      })
      .sort((a, b) => b.count - a.count);
    const total = perPackage.reduce((sum, p) => sum + p.count, 0);
    expect(
      total,
      `${total} public names, budget ${PUBLIC_NAME_BUDGET}:\n${perPackage.map((p) => p.line).join('\n')}`,
    ).toBeLessThanOrEqual(PUBLIC_NAME_BUDGET);
  });

  it('reads every entry from its TypeScript source', () => {
    expect(entries.length).toBeGreaterThan(9);
    expect(
      entries
        .filter((e) => e.names.some((n) => n.startsWith('<no TypeScript source')))
        .map((e) => e.specifier),
    ).toEqual([]);
    // The compiler resolved the entries: the server entry offers its core factory by name.
    expect(entries.find((e) => e.specifier === '@agentd/server')?.names).toContain('createServerCore');
  });
});

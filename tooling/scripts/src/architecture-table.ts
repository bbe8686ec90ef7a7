/**
 * docs/architecture.md's dependency table, checked against the package manifests: a package whose
 * dependencies change without the table (or the other way round) is named with what differs.
 *
 * A row: `| package | depends on (@agentd) | outside dependencies |`. A cell lists names separated
 * by commas; `none` is empty; `(notes)` are ignored; a segment after `; optional peers:` lists
 * optional peer dependencies; a name ending in `/*` stands for every package of that scope.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

interface Manifest {
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
}

interface Listed {
  required: string[];
  optional: string[];
}

const SCOPE = '@agentd/';

/** The table's cell as names: required ones and those after `optional peers:`. */
export function cellNames(cell: string): Listed {
  const listed: Listed = { required: [], optional: [] };
  for (const segment of cell.replace(/\([^)]*\)/g, '').split(';')) {
    const optional = /^\s*optional peers:/.test(segment);
    const names = segment
      .replace(/^\s*optional peers:/, '')
      .split(',')
      .map((n) => n.trim().replace(/^`|`$/g, ''))
      .filter((n) => n !== '' && n !== 'none');
    (optional ? listed.optional : listed.required).push(...names);
  }
  return listed;
}

/** The dependency table's rows: the package's folder (relative to the root) and its two cells. */
export function tableRows(markdown: string): Array<{ dir: string; agentd: Listed; outside: Listed }> {
  const start = markdown.indexOf('| package | depends on (@agentd) | outside dependencies |');
  if (start === -1) throw new Error('docs/architecture.md has no dependency table');
  const rows = [];
  for (const line of markdown.slice(start).split('\n').slice(2)) {
    if (!line.startsWith('|')) break;
    const [name = '', agentd = '', outside = ''] = line
      .split('|')
      .slice(1, 4)
      .map((c) => c.trim());
    rows.push({
      dir: name.includes('/') ? name : `packages/${name}`,
      agentd: cellNames(agentd),
      outside: cellNames(outside),
    });
  }
  return rows;
}

function manifestNames(manifest: Manifest): Listed {
  const optional = (n: string) => manifest.peerDependenciesMeta?.[n]?.optional === true;
  const peers = Object.keys(manifest.peerDependencies ?? {});
  return {
    required: [...Object.keys(manifest.dependencies ?? {}), ...peers.filter((n) => !optional(n))],
    optional: peers.filter(optional),
  };
}

function differences(where: string, table: string[], actual: string[]): string[] {
  const matches = (pattern: string, name: string) =>
    pattern.endsWith('/*') ? name.startsWith(pattern.slice(0, -1)) : pattern === name;
  const problems: string[] = [];
  for (const name of actual)
    if (!table.some((p) => matches(p, name)))
      problems.push(`${where}: ${name} is a dependency the table omits`);
  for (const pattern of table)
    if (!actual.some((n) => matches(pattern, n)))
      problems.push(`${where}: the table lists ${pattern}, not a dependency`);
  return problems;
}

/** Every disagreement between the table and the workspace's manifests; empty when they agree. */
export function architectureDrift(root: string): string[] {
  const rows = tableRows(readFileSync(join(root, 'docs/architecture.md'), 'utf8'));
  const problems: string[] = [];
  const workspace = ['packages', 'apps', 'examples'].flatMap((group) =>
    readdirSync(join(root, group))
      .map((name) => `${group}/${name}`)
      .filter((dir) => existsSync(join(root, dir, 'package.json'))),
  );
  for (const dir of workspace)
    if (!rows.some((r) => r.dir === dir)) problems.push(`${dir}: no row in the dependency table`);
  for (const { dir, agentd, outside } of rows) {
    if (!workspace.includes(dir)) {
      problems.push(`${dir}: a row for a package that does not exist`);
      continue;
    }
    const manifest = JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8')) as Manifest;
    const actual = manifestNames(manifest);
    const ours = (names: string[]) =>
      names.filter((n) => n.startsWith(SCOPE)).map((n) => n.slice(SCOPE.length));
    const theirs = (names: string[]) => names.filter((n) => !n.startsWith(SCOPE));
    problems.push(
      ...differences(`${dir} (@agentd)`, agentd.required, ours(actual.required)),
      ...differences(`${dir} (@agentd, optional peers)`, agentd.optional, ours(actual.optional)),
      ...differences(`${dir} (outside)`, outside.required, theirs(actual.required)),
      ...differences(`${dir} (outside, optional peers)`, outside.optional, theirs(actual.optional)),
    );
  }
  return problems;
}

/**
 * Package READMEs are what npm shows: each stays under 300 lines, and the longer reference lives in
 * the package's docs/ folder. Every relative link of a README and of those docs resolves, anchor
 * included, so moving a section cannot leave a link pointing at nothing.
 */
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const MAX_LINES = 300;

const packageDirs = [
  ...readdirSync(join(root, 'packages')).map((name) => join(root, 'packages', name)),
  join(root, 'apps/agentd'),
].filter((dir) => existsSync(join(dir, 'README.md')));

/** A package's README and the Markdown files of its docs/ folder. */
function documents(dir: string): string[] {
  const docs = join(dir, 'docs');
  const inDocs = existsSync(docs)
    ? readdirSync(docs)
        .filter((name) => name.endsWith('.md'))
        .map((name) => join(docs, name))
    : [];
  return [join(dir, 'README.md'), ...inDocs];
}

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const found = new Set<string>();
  const text = markdown.replace(/^```[\s\S]*?^```$/gm, '');
  for (const [, heading] of text.matchAll(/^#{1,6} (.+)$/gm)) {
    const slug = (heading as string)
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/ /g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    found.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return found;
}

/** The relative links of `file` that name no existing file, or no heading of a Markdown file. */
function brokenLinks(file: string): string[] {
  const text = readFileSync(file, 'utf8').replace(/^```[\s\S]*?^```$/gm, '');
  const broken: string[] = [];
  for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
    const link = target as string;
    if (/^[a-z]+:/i.test(link)) continue;
    const [path = '', anchor] = link.split('#');
    const resolved = path === '' ? file : join(dirname(file), path);
    if (!existsSync(resolved)) broken.push(link);
    else if (
      anchor !== undefined &&
      resolved.endsWith('.md') &&
      !anchors(readFileSync(resolved, 'utf8')).has(anchor)
    )
      broken.push(link);
  }
  return broken.map((link) => `${relative(root, file)}: ${link}`);
}

describe('package READMEs', () => {
  it.each(packageDirs.map((dir) => relative(root, dir)))(
    `%s/README.md has at most ${MAX_LINES} lines`,
    (dir) => {
      const lines = readFileSync(join(root, dir, 'README.md'), 'utf8').split('\n').length - 1;
      expect(lines, `${dir}/README.md: move reference material to ${dir}/docs/`).toBeLessThanOrEqual(
        MAX_LINES,
      );
    },
  );

  it('their relative links, and those of their docs/, resolve', () => {
    expect(packageDirs.flatMap(documents).flatMap(brokenLinks)).toEqual([]);
  });

  it('finds a missing anchor and a missing file', () => {
    expect([...anchors('# Per-tool scopes: `requiredScopes`\n## A\n## A\n')]).toEqual([
      'per-tool-scopes-requiredscopes',
      'a',
      'a-1',
    ]);
    const dir = mkdtempSync(join(tmpdir(), 'agentd-readme-links-'));
    try {
      mkdirSync(join(dir, 'docs'));
      writeFileSync(join(dir, 'docs/api.md'), '# API\n\n## Extensions (both eras)\n');
      const links = [
        'docs/api.md#extensions-both-eras',
        'docs/api.md#extensions',
        'docs/gone.md',
        '#top',
        'https://x.example/',
      ];
      writeFileSync(join(dir, 'README.md'), `# Top\n\n${links.map((l) => `[x](${l})`).join('\n')}\n`);
      expect(brokenLinks(join(dir, 'README.md')).map((line) => line.slice(line.indexOf(': ') + 2))).toEqual([
        'docs/api.md#extensions',
        'docs/gone.md',
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

/**
 * The root entry (`createFetchHandler` and the helpers), the `jwt` subpath and the root entries of
 * `@agentd/dispatch` and `@agentd/server` must load on every runtime: no `node:` module anywhere in
 * their import graph, following files and workspace dependencies' entries (type-only imports are
 * erased and do not count; dispatch's Code Mode sandbox is a dynamic import and not followed).
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const PACKAGES = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
/** Value imports and re-exports (`import type`/`export type` excluded), and dynamic imports. */
const IMPORT =
  /(?:^|\n)\s*(?:import|export)\s+(?!type\s)(?:[^'";]*?\sfrom\s+)?'([^']+)'|import\(\s*'([^']+)'\s*\)/g;

function sourceOf(specifier: string): string | undefined {
  const match = /^@agentd\/([^/]+)(?:\/(.+))?$/.exec(specifier);
  if (match === null) return undefined;
  const pkg = JSON.parse(readFileSync(join(PACKAGES, match[1] as string, 'package.json'), 'utf8')) as {
    exports: Record<string, { '@agentd/source'?: string } | string>;
  };
  const entry = pkg.exports[match[2] === undefined ? '.' : `./${match[2]}`];
  if (typeof entry !== 'object' || entry['@agentd/source'] === undefined)
    throw new Error(`no source for ${specifier}`);
  return join(PACKAGES, match[1] as string, entry['@agentd/source']);
}

/** Every module the entry may load at run time (with `lazy`, dynamic imports too): files, external specifiers. */
function graphOf(entry: string, lazy = true): { files: string[]; external: Set<string> } {
  const seen = new Set<string>();
  const external = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    const text = readFileSync(file, 'utf8');
    for (const match of text.matchAll(IMPORT)) {
      if (match[2] !== undefined && !lazy) continue;
      const specifier = (match[1] ?? match[2]) as string;
      if (specifier.startsWith('.')) {
        const target = resolve(dirname(file), specifier);
        // Some packages ship plain .js sources (with a .d.ts beside them).
        visit(existsSync(target.replace(/\.js$/, '.ts')) ? target.replace(/\.js$/, '.ts') : target);
      } else {
        const workspace = sourceOf(specifier);
        if (workspace !== undefined) visit(workspace);
        else external.add(specifier);
      }
    }
  };
  visit(entry);
  return { files: [...seen], external };
}

describe('runtime-neutral entries', () => {
  it('the root entry imports no node: module, rpc-frame included', () => {
    const { files, external } = graphOf(join(PACKAGES, 'transport-http/src/index.ts'));
    expect(files.some((f) => f.endsWith('/transport-http/src/fetch-handler.ts'))).toBe(true);
    expect(files.some((f) => /transport-http\/src\/(node-|http-transport|drain-body)/.test(f))).toBe(false);
    expect([...external].filter((s) => s.startsWith('node:'))).toEqual([]);
    for (const file of files) {
      const text = readFileSync(file, 'utf8');
      expect(
        [...text.matchAll(IMPORT)].map((m) => m[1] ?? m[2]).filter((s) => s?.startsWith('node:')),
        file,
      ).toEqual([]);
    }
  });

  it('the jwt subpath needs only jose', () => {
    const { external } = graphOf(join(PACKAGES, 'transport-http/src/jwt.ts'));
    expect([...external].filter((s) => s.startsWith('node:'))).toEqual([]);
    expect(external.has('jose')).toBe(true);
  });

  it('a Dispatcher without Code Mode imports no node: module (the sandbox is lazy)', () => {
    const { files, external } = graphOf(join(PACKAGES, 'dispatch/src/index.ts'), false);
    expect(files.some((f) => f.endsWith('/dispatch/src/request-state.ts'))).toBe(true);
    expect([...external].filter((s) => s.startsWith('node:'))).toEqual([]);
  });

  it("the server's root entry imports no node: module", () => {
    const { files, external } = graphOf(join(PACKAGES, 'server/src/index.ts'), false);
    expect(files.some((f) => f.endsWith('/server/src/server-core.ts'))).toBe(true);
    expect([...external].filter((s) => s.startsWith('node:'))).toEqual([]);
  });

  it("dispatch's own modules on that path do not use the Buffer global (Deno and workerd have none)", () => {
    const { files } = graphOf(join(PACKAGES, 'dispatch/src/index.ts'), false);
    const users = files.filter(
      (file) => file.includes('/dispatch/src/') && /\bBuffer\.[a-z]/.test(readFileSync(file, 'utf8')),
    );
    expect(users).toEqual([]);
  });
});

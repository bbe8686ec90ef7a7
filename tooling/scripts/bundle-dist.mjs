/**
 * Run in a package directory after `tsc`: rewrites `dist/` so each entry the package exports (and
 * each worker file a module loads by URL) is one ES module, with the code the entries share in
 * chunks. Node 20's ESM loader pays for every file it resolves and compiles, so a server that
 * imported five packages as ~150 files started twice as slowly as the same code in ~15 files.
 * Dependencies stay imports; `.d.ts` files stay as tsc wrote them; the source maps chain back to
 * `src/` through tsc's own maps.
 */
import { readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';

const dist = resolve('dist');
const manifest = JSON.parse(readFileSync('package.json', 'utf8'));

/** Every `default` target under ./dist in the exports map. */
function exportedEntries(exports) {
  const found = new Set();
  const walk = (node) => {
    if (typeof node === 'string') {
      if (node.startsWith('./dist/') && node.endsWith('.js')) found.add(node.slice('./dist/'.length));
      return;
    }
    if (node !== null && typeof node === 'object') for (const value of Object.values(node)) walk(value);
  };
  walk(exports);
  return found;
}

/** Files a module opens by URL (`new URL('./worker.js', import.meta.url)`): they must stay files. */
function urlEntries(files) {
  const found = new Set();
  const pattern = /new URL\(\s*['"]\.\/([\w.-]+\.js)['"]\s*,\s*import\.meta\.url\s*\)/g;
  for (const file of files) {
    for (const match of readFileSync(join(dist, file), 'utf8').matchAll(pattern)) found.add(match[1]);
  }
  return found;
}

const scripts = readdirSync(dist).filter((file) => file.endsWith('.js'));
const entries = [...new Set([...exportedEntries(manifest.exports), ...urlEntries(scripts)])].filter((file) =>
  scripts.includes(file),
);
if (entries.length === 0) throw new Error(`${manifest.name}: no dist entry in the exports map`);

const out = resolve('dist.bundle');
rmSync(out, { recursive: true, force: true });
await build({
  entryPoints: entries.map((file) => join(dist, file)),
  outdir: out,
  outbase: dist,
  bundle: true,
  splitting: true,
  format: 'esm',
  // The packages run on Node, Bun, Deno and workerd: nothing runtime-specific is assumed.
  platform: 'neutral',
  packages: 'external',
  target: 'es2022',
  sourcemap: 'linked',
  sourcesContent: false,
  chunkNames: 'chunk-[hash]',
  logLevel: 'warning',
});

// A chunk that only re-exports another (the facade of a lazily imported module) maps no source:
// it ships without a map rather than with an empty one.
for (const file of readdirSync(out)) {
  if (!file.endsWith('.js.map') || JSON.parse(readFileSync(join(out, file), 'utf8')).sources.length > 0)
    continue;
  rmSync(join(out, file));
  const script = join(out, file.slice(0, -'.map'.length));
  writeFileSync(script, readFileSync(script, 'utf8').replace(`//# sourceMappingURL=${file}\n`, ''));
}

// The per-module scripts are now inside the bundles: only the bundles and the declarations ship.
for (const file of readdirSync(dist)) {
  if (/\.js(?:\.map)?$/.test(file)) rmSync(join(dist, file));
}
for (const file of readdirSync(out)) renameSync(join(out, file), join(dist, file));
rmSync(out, { recursive: true, force: true });

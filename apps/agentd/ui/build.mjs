/**
 * Builds agentd's runs page: ui/src/main.ts bundled by esbuild and inlined with ui/page.css into
 * ui/page.html, one self-contained file at dist/ui/runs.html (no CDN, nothing fetched at run time).
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const here = dirname(fileURLToPath(import.meta.url));
const out = join(here, '..', 'dist', 'ui', 'runs.html');

const bundle = await build({
  entryPoints: [join(here, 'src', 'main.ts')],
  bundle: true,
  format: 'iife',
  platform: 'browser',
  target: 'es2022',
  minify: true,
  legalComments: 'none',
  write: false,
  logLevel: 'warning',
});
const css = await build({
  entryPoints: [join(here, 'page.css')],
  bundle: true,
  minify: true,
  write: false,
  logLevel: 'warning',
});
// `</` inside inline code would end the element early.
const script = (bundle.outputFiles[0]?.text ?? '').trim().replace(/<\//g, '<\\/');
const style = (css.outputFiles[0]?.text ?? '').trim().replace(/<\//g, '<\\/');
const html = readFileSync(join(here, 'page.html'), 'utf8')
  .replace('/*@page-style*/', () => style)
  .replace('/*@page-script*/', () => script);
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, html);

/** Tests for the source map check on an unpacked package. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { sourceMapProblems } from './source-maps.js';

let dir = '';
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function packageWith(files: Record<string, string>): string {
  dir = mkdtempSync(join(tmpdir(), 'agentd-maps-'));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(dir, name, '..'), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  return dir;
}

const js = 'export const a = 1;\n//# sourceMappingURL=index.js.map\n';

describe('sourceMapProblems', () => {
  it('accepts maps whose sources are shipped or carried in sourcesContent', () => {
    const pkg = packageWith({
      'dist/index.js': js,
      'dist/index.js.map': JSON.stringify({ version: 3, sources: ['../src/index.ts'], mappings: '' }),
      'dist/index.d.ts': 'export declare const a = 1;\n//# sourceMappingURL=index.d.ts.map\n',
      'dist/index.d.ts.map': JSON.stringify({ version: 3, sources: ['gone.ts'], sourcesContent: ['x'] }),
      'src/index.ts': 'export const a = 1;\n',
    });
    expect(sourceMapProblems(pkg)).toEqual([]);
  });

  it('reports sources that are not shipped, maps that are missing and a sourceRoot that leads away', () => {
    const pkg = packageWith({
      'dist/index.js': js,
      'dist/index.js.map': JSON.stringify({ version: 3, sources: ['../src/index.ts'], mappings: '' }),
      'dist/other.js': 'x;\n//# sourceMappingURL=other.js.map\n',
      'dist/rooted.js.map': JSON.stringify({ version: 3, sourceRoot: '../..', sources: ['index.js'] }),
      'dist/empty.js.map': JSON.stringify({ version: 3, sources: [] }),
    });
    expect(sourceMapProblems(pkg).sort()).toEqual([
      'dist/empty.js.map: no sources',
      'dist/index.js.map: source ../src/index.ts is neither shipped nor in sourcesContent',
      'dist/other.js: sourceMappingURL other.js.map is not in the package',
      'dist/rooted.js.map: source index.js is neither shipped nor in sourcesContent',
    ]);
  });
});

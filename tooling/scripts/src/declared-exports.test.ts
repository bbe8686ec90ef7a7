/** Tests for reading the runtime names an entry file declares. */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { declaredValueExports } from './declared-exports.js';

const dirs: string[] = [];
afterAll(() => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

describe('declaredValueExports', () => {
  it('keeps values (re-exported or local) and leaves types and type-only exports out', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'declared-exports-'));
    dirs.push(dir);
    await writeFile(
      join(dir, 'impl.ts'),
      'export class Thing {}\nexport function make() { return 1; }\nexport interface Shape { a: 1 }\nexport const LIMIT = 3;\n',
    );
    await writeFile(
      join(dir, 'index.ts'),
      [
        "export { make, type Shape, LIMIT as MAX } from './impl.js';",
        "export type { Thing as ThingType } from './impl.js';",
        "export { Thing } from './impl.js';",
        'export type Alias = string;',
        'export enum Mode { A }',
        'export const local = 1;',
      ].join('\n'),
    );
    const index = join(dir, 'index.ts');
    expect(declaredValueExports([index], []).get(index)).toEqual(['MAX', 'Mode', 'Thing', 'local', 'make']);
  });
});

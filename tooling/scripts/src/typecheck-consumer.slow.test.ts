/** Tests that the consumer type-check reports broken or dev-only typings of our scope, and only those. */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { typecheckConsumer } from './typecheck-consumer.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const dirs: string[] = [];
afterAll(() => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

async function project(packages: Record<string, string>, consumer: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'typecheck-consumer-'));
  dirs.push(dir);
  for (const [name, dts] of Object.entries(packages)) {
    const pkgDir = join(dir, 'node_modules', name);
    await mkdir(pkgDir, { recursive: true });
    const manifest = { name, version: '1.0.0', type: 'module', exports: { '.': { types: './index.d.ts' } } };
    await writeFile(join(pkgDir, 'package.json'), JSON.stringify(manifest));
    await writeFile(join(pkgDir, 'index.d.ts'), dts);
  }
  await writeFile(join(dir, 'package.json'), '{"type":"module"}');
  await writeFile(join(dir, 'consumer.ts'), consumer);
  return join(dir, 'consumer.ts');
}

const options = { scope: '@agentd', typeRoots: [join(root, 'node_modules/@types')], types: [] };

describe('typecheckConsumer', () => {
  it('passes a consumer of sound typings', async () => {
    const file = await project(
      { '@agentd/good': 'export declare function f(b: Uint8Array): number;\n' },
      "import { f } from '@agentd/good';\nexport const n: number = f(new Uint8Array(1));\n",
    );
    expect(typecheckConsumer(file, options)).toEqual([]);
  });

  it('reports typings that need a module the consumer does not have (a dev-only dependency)', async () => {
    const file = await project(
      {
        '@agentd/leaky':
          "import type { Schema } from 'some-dev-only-lib';\nexport declare const s: Schema;\n",
      },
      "import { s } from '@agentd/leaky';\nexport const x: unknown = s;\n",
    );
    expect(typecheckConsumer(file, options).join('\n')).toMatch(/some-dev-only-lib/);
  });

  it('reports a missing export and a type error in the consumer', async () => {
    const file = await project(
      { '@agentd/small': 'export declare const a: string;\n' },
      "import { a, b } from '@agentd/small';\nexport const n: number = a;\nexport const m = b;\n",
    );
    const errors = typecheckConsumer(file, options);
    expect(errors.some((e) => e.includes('TS2305'))).toBe(true);
    expect(errors.some((e) => e.includes('TS2322'))).toBe(true);
  });
});

/** Tests for finding the packages built code imports. */
import { describe, expect, it } from 'vitest';
import { importedPackages, packageName } from './bare-imports.js';

describe('importedPackages', () => {
  it('finds static, re-export, side-effect, dynamic and require imports, not paths or builtins', () => {
    const code = [
      "import { a } from 'ajv';",
      "import type { B } from '@scope/pkg/sub';",
      "export { c } from 'zod/v4';",
      "export * from './local.js';",
      "import 'side-effect';",
      "const lazy = await import('lazy-dep');",
      "const cjs = require('old-dep');",
      "import { readFile } from 'node:fs/promises';",
      "import path from 'path';",
      "import x from '../up.js';",
      'const variable = await import(name);',
      "const reserved = ['import',\n  'export', 'x'];",
      'const text = \'see import "quoted" words\';',
      "obj.import('not-a-module');",
    ].join('\n');
    expect(importedPackages(code)).toEqual([
      '@scope/pkg',
      'ajv',
      'lazy-dep',
      'old-dep',
      'side-effect',
      'zod',
    ]);
  });

  it('maps specifiers to package names', () => {
    expect(packageName('@agentd/rpc-frame')).toBe('@agentd/rpc-frame');
    expect(packageName('quickjs-emscripten/variants')).toBe('quickjs-emscripten');
    expect(packageName('node:net')).toBeUndefined();
    expect(packageName('fs')).toBeUndefined();
    expect(packageName('/abs/file.js')).toBeUndefined();
  });
});

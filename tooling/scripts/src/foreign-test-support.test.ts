/** No test imports another package's `src/test-support`: shared helpers live in `@agentd/test-support`. */
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { foreignTestSupport } from './foreign-test-support.js';
import { testFiles } from './test-files.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

describe('foreignTestSupport', () => {
  it("finds another package's test-support by relative path, URL or bare specifier", () => {
    const code = [
      "import { a } from '../../../packages/transport-http/src/test-support/authorization-server.js';",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the sample is source text with a template literal in it
      'const PEM = new URL(`../../../packages/transport-http/src/test-support/${name}`, import.meta.url);',
      "import { b } from '@agentd/server/src/test-support/socket-server.js';",
    ].join('\n');
    expect(foreignTestSupport('apps/agentd/test/a.test.ts', code).map((u) => u.line)).toEqual([1, 2, 3]);
  });

  it("leaves a package's own test-support and @agentd/test-support alone", () => {
    const code = [
      "import { c } from './test-support/fixtures.js';",
      "const REPLICA = new URL('../src/test-support/replica.mjs', import.meta.url);",
      "import { NdjsonClient } from '@agentd/test-support';",
    ].join('\n');
    expect(foreignTestSupport('packages/redis/src/scale-out.slow.test.ts', code)).toEqual([]);
    expect(foreignTestSupport('packages/redis/bench/scale-out.ts', code)).toEqual([]);
  });
});

describe('the workspace test code', () => {
  it("imports no other package's src/test-support", () => {
    // This file's own samples are not imports.
    const self = 'tooling/scripts/src/foreign-test-support.test.ts';
    const uses = testFiles(root)
      .filter((file) => file !== self)
      .flatMap((file) =>
        foreignTestSupport(file, readFileSync(join(root, file), 'utf8')).map(
          (u) => `${file}:${u.line}  ${u.target}`,
        ),
      );
    expect(
      uses,
      `test code reaching into another package's src/test-support (move the helper to tooling/test-support):\n${uses.join('\n')}`,
    ).toEqual([]);
  });
});

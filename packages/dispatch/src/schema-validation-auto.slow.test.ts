/**
 * `schemaValidation: 'auto'` on a runtime without code generation: a real Node child started with
 * `--disallow-code-generation-from-strings` (the rule workerd enforces) registers and calls tools
 * through the built package, and bad arguments get the usual isError text.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';

const DIST = fileURLToPath(new URL('../dist/', import.meta.url));

const SCRIPT = `
const { Dispatcher } = await import(${JSON.stringify(`${DIST}index.js`)});
const { createTestClient } = await import(${JSON.stringify(`${DIST}testing.js`)});
let generated = 'yes';
try { new Function('return 1'); } catch (error) { generated = error.name; }
const d = new Dispatcher({ logger: { error: () => {} } });
d.registerTool({
  name: 'square',
  description: 'Squares n',
  // An array property: not a flat schema (those need no validator package), so the interpreter runs.
  inputSchema: {
    type: 'object',
    properties: { n: { type: 'integer' }, tags: { type: 'array', items: { type: 'string' } } },
    required: ['n'],
    additionalProperties: false,
  },
  handler: ({ n }) => String(n * n),
});
const client = await createTestClient(d);
const good = await client.callTool('square', { n: 7 });
const bad = await client.callTool('square', { n: 'x', m: 1 });
await client.close();
console.log(JSON.stringify({ generated, good, bad }));
`;

it('picks the interpreting validator by itself where code generation is forbidden', async () => {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--disallow-code-generation-from-strings', '--input-type=module', '--eval', SCRIPT],
    { timeout: 30_000 },
  );
  const { generated, good, bad } = JSON.parse(stdout) as Record<
    string,
    { content: unknown; isError?: boolean }
  >;
  expect(generated).toBe('EvalError');
  expect(good?.isError).toBeUndefined();
  expect(good?.content).toEqual([{ type: 'text', text: '49' }]);
  expect(bad).toMatchObject({
    content: [
      {
        type: 'text',
        text: 'Invalid arguments: argument `n` must be integer (type); argument `m` is not allowed (additionalProperties)',
      },
    ],
    isError: true,
  });
});

/**
 * The middleware, tool-hook and scopes examples of docs/middleware.md (linked from the README), run
 * verbatim: each fenced block after a `<!-- readme-example: NAME -->` marker is taken from the doc,
 * its imports bound to the real modules, and its variables checked against what its comments say.
 */
import { readFileSync } from 'node:fs';
import * as rpcFrame from '@agentd/rpc-frame';
import { expect, it } from 'vitest';
import * as dispatch from './index.js';
import * as testing from './testing.js';

const MODULES: Record<string, Record<string, unknown>> = {
  '@agentd/dispatch': dispatch,
  '@agentd/dispatch/testing': testing,
  '@agentd/rpc-frame': rpcFrame,
};

const README = readFileSync(new URL('../docs/middleware.md', import.meta.url), 'utf8');

type AsyncFn = (...args: unknown[]) => Promise<Record<string, unknown>>;
const AsyncFunction = Object.getPrototypeOf(async () => {}).constructor as new (...args: string[]) => AsyncFn;

/** Runs the example and resolves to the values of `names` at its end. */
async function runExample(name: string, names: string[]): Promise<Record<string, unknown>> {
  const marker = `<!-- readme-example: ${name} -->\n\`\`\`ts\n`;
  const start = README.indexOf(marker);
  expect(start, `docs/middleware.md has no example ${name}`).toBeGreaterThan(-1);
  const body = README.slice(start + marker.length, README.indexOf('\n```', start + marker.length));
  const bindings: Record<string, unknown> = {};
  const code = body.replace(/^import \{([^}]+)\} from '([^']+)';$/gm, (_line, list: string, from: string) => {
    const module = MODULES[from];
    if (module === undefined) throw new Error(`example ${name} imports ${from}`);
    for (const imported of list.split(',').map((n) => n.trim())) {
      expect(module[imported], `${from} exports ${imported}`).toBeDefined();
      bindings[imported] = module[imported];
    }
    return '';
  });
  const run = new AsyncFunction(...Object.keys(bindings), `${code}\nreturn { ${names.join(', ')} };`);
  return run(...Object.values(bindings));
}

it('the middleware example times the request and hands the tenant to the handler', async () => {
  const { result, timings } = await runExample('middleware', ['result', 'timings']);
  expect((result as rpcFrame.JsonObject).content).toEqual([{ type: 'text', text: 'tenant acme' }]);
  expect(timings).toEqual([{ method: 'tools/call', ms: expect.any(Number) }]);
});

it('the tool-hook example audits validated calls only', async () => {
  const { audit } = await runExample('tool-hook', ['audit']);
  expect(audit).toEqual([{ tool: 'add', arguments: { a: 2, b: 3 }, isError: false }]);
});

it('the scopes example hides the tool and answers insufficient scope', async () => {
  const { listed, refused } = await runExample('scopes', ['listed', 'refused']);
  expect(listed).toEqual(['runs_list']);
  expect(refused).toBeInstanceOf(rpcFrame.WireError);
  expect((refused as rpcFrame.WireError).code).toBe(-32003);
  expect((refused as rpcFrame.WireError).data).toEqual({ requiredScopes: ['runs:write'] });
});

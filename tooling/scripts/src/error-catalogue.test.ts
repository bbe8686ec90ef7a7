/**
 * The error catalogue is the only way protocol errors are made: outside rpc-frame and lifecycle no
 * production file builds a `WireError` by hand or spells an `io.modelcontextprotocol/` key.
 */
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CATALOGUE_MARKER, catalogueBreaches, mayBreak, productionFiles } from './error-catalogue.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

describe('catalogueBreaches', () => {
  it('finds hand-built wire errors and protocol keys spelled in code', () => {
    const code = [
      "throw new WireError(-32602, 'Invalid params: nope');",
      'const refusal = new  Refusal("invalid-params", -32602, "x");',
      "const meta = { 'io.modelcontextprotocol/logLevel': 'info' };",
      'const id = `io.modelcontextprotocol/ui`;',
      'const key = "io.modelcontextprotocol/clientInfo";',
    ].join('\n');
    expect(catalogueBreaches(code)).toEqual([
      { rule: 'wire-error', line: 1 },
      { rule: 'wire-error', line: 2 },
      { rule: 'protocol-key', line: 3 },
      { rule: 'protocol-key', line: 4 },
      { rule: 'protocol-key', line: 5 },
    ]);
  });

  it('leaves comments, catalogue calls, other texts and marked lines alone', () => {
    const code = [
      '// throw new WireError(-32602, "x") was here',
      '/** E.g. `io.modelcontextprotocol/ui`, or',
      " * new WireError(1, 'y') */",
      'throw refuse.invalidParams("new WireError(")',
      'if (WireError.is(thrown)) throw WireError.from(response.error);',
      'const text = `not an id: e.g. io.modelcontextprotocol/ui`;',
      'const meta = { [MetaKey.logLevel]: "info" };',
      `// ${CATALOGUE_MARKER} the conformance suite wants this exact text`,
      "throw new WireError(-32603, 'Internal error: the job crashed');",
      "const s = 'it\\'s' + new Date(); throw new WireError(1, 'x');",
    ].join('\n');
    expect(catalogueBreaches(code)).toEqual([{ rule: 'wire-error', line: 10 }]);
  });

  it('lets the owners do what they own, and nobody else', () => {
    expect(mayBreak('packages/lifecycle/src/refusals.ts', 'wire-error')).toBe(true);
    expect(mayBreak('packages/rpc-frame/src/classify.ts', 'wire-error')).toBe(true);
    expect(mayBreak('packages/rpc-frame/src/classify.ts', 'protocol-key')).toBe(false);
    expect(mayBreak('packages/dispatch/src/call-tool.ts', 'wire-error')).toBe(false);
    expect(mayBreak('apps/agentd/src/self-mcp/self-mcp.ts', 'wire-error')).toBe(false);
  });
});

describe('the workspace', () => {
  it('reads the production code of the packages, agentd and the examples (not tests)', () => {
    const files = productionFiles(root);
    expect(files).toContain('packages/dispatch/src/dispatcher.ts');
    expect(files).toContain('apps/agentd/src/self-mcp/self-mcp.ts');
    expect(files).toContain('examples/mcp-server/starter/server.mjs');
    expect(files.filter((file) => /\.test\.ts$|\/test-support\//.test(file))).toEqual([]);
  });

  it('builds every protocol error from the catalogue and spells protocol keys only in lifecycle', () => {
    const breaches = productionFiles(root).flatMap((file) =>
      catalogueBreaches(readFileSync(join(root, file), 'utf8'))
        .filter((breach) => !mayBreak(file, breach.rule))
        .map((breach) => `${file}:${breach.line} ${breach.rule}`),
    );
    expect(breaches).toEqual([]);
  });
});

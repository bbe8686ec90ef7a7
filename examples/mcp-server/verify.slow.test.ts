/** verify.mjs passes the starter, and fails (naming the case) an implementation that breaks one rule. */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const here = dirname(fileURLToPath(import.meta.url));
const verify = join(here, 'verify.mjs');
const starter = readFileSync(join(here, 'starter', 'server.mjs'), 'utf8');
// Inside this folder, so the copy resolves @agentd/dispatch like the starter does.
const scratch = mkdtempSync(join(here, '.verify-test-'));

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function run(...args: string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [verify, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    child.on('exit', (code) => resolve({ code, output }));
  });
}

/** A copy of the starter with `patch` inserted right after the server is created. */
function variant(name: string, patch: string): string {
  const anchor = 'const server = new ContractServer();\n';
  expect(starter).toContain(anchor);
  const file = join(scratch, `${name}.mjs`);
  writeFileSync(file, starter.replace(anchor, `${anchor}${patch}\n`));
  return file;
}

/**
 * A patch that breaks the answers every transport gets: each connection the core opens runs
 * `answer(frame, response)` over what the contract would have sent (the body of an async function).
 */
function breakAnswers(answer: string): string {
  return [
    'const open = server.core.openConnection.bind(server.core);',
    'server.core.openConnection = (peer, writer) => {',
    '  const connection = open(peer, writer);',
    '  const handle = connection.handle.bind(connection);',
    '  connection.handle = async (frame, options) => {',
    '    const response = await handle(frame, options);',
    `    ${answer}`,
    '  };',
    '  return connection;',
    '};',
  ].join('\n');
}

describe('examples/mcp-server/verify.mjs', () => {
  it('passes every case of the contract against the starter, over stdio and HTTP', async () => {
    const { code, output } = await run('starter');
    expect(output).toMatch(/all \d+ cases pass/);
    expect(output).toContain('ok    [stdio] initialize');
    expect(output).toContain('ok    [http] initialize');
    expect(code).toBe(0);
  });

  it('fails an implementation that answers initialize, naming that case on both transports', async () => {
    const broken = variant(
      'answers-initialize',
      breakAnswers(
        "return frame.message?.method === 'initialize' ? { jsonrpc: '2.0', id: frame.message.id, result: {} } : response;",
      ),
    );
    const { code, output } = await run(broken);
    expect(code).toBe(1);
    expect(output).toMatch(/2 failing case\(s\):/);
    expect(output).toContain(
      '  - [stdio] initialize: -32601, removed by the stateless 2026-07-28 specification',
    );
    expect(output).toContain(
      '  - [http] initialize: -32601, removed by the stateless 2026-07-28 specification',
    );
  });

  it('fails an implementation that drops the id of invalid requests, on the transport asked for', async () => {
    const broken = variant(
      'drops-ids',
      breakAnswers('return response?.error?.code === -32600 ? { ...response, id: null } : response;'),
    );
    const { code, output } = await run(broken, '--transport', 'stdio');
    expect(code).toBe(1);
    expect(output).toContain('FAIL  [stdio] invalid request: no method (id kept): id is null, expected 7');
    expect(output).not.toContain('[http]');
  });

  it('exits 2 for an implementation that does not exist', async () => {
    const { code, output } = await run('no-such-implementation');
    expect(code).toBe(2);
    expect(output).toContain('verify: no implementation at');
  });
});

/**
 * Runs the OFFICIAL MCP conformance suite (pinned, on Node 22 via npx) against the built fixture,
 * once per protocol revision, with no expected-failures baseline. Needs `turbo run build` first.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const MAIN = fileURLToPath(new URL('../dist/main.js', import.meta.url));
const NODE_FOR_SUITE = 'node@22.23.3';
const SUITE = '@modelcontextprotocol/conformance@0.2.0-alpha.12';
// The first run downloads Node 22 and the suite.
const SUITE_TIMEOUT_MS = 240_000;

let server: ChildProcess;
let url: string;

beforeAll(async () => {
  if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: run \`turbo run build\` first`);
  server = spawn(process.execPath, [MAIN, '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
  url = await new Promise<string>((resolve, reject) => {
    let out = '';
    server.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (line !== undefined) resolve((JSON.parse(line) as { url: string }).url);
    });
    server.once('exit', (code) => reject(new Error(`fixture exited early with ${code}`)));
  });
}, 30_000);

afterAll(async () => {
  if (server.exitCode !== null) return;
  const exited = new Promise((resolve) => server.once('exit', resolve));
  server.kill('SIGTERM');
  await exited;
});

function runSuite(revision: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      'npx',
      [
        '-y',
        '-p',
        NODE_FOR_SUITE,
        '-p',
        SUITE,
        'conformance',
        'server',
        '--url',
        url,
        '--requirements',
        revision,
      ],
      { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, npm_config_update_notifier: 'false' } },
    );
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code, output }));
  });
}

function summary(output: string): string {
  const at = output.lastIndexOf('=== SUMMARY ===');
  return at === -1 ? output.slice(-6_000) : output.slice(at);
}

describe('official MCP conformance suite against the fixture', () => {
  for (const revision of ['2025-11-25', '2026-07-28']) {
    it(
      `passes --requirements ${revision} with no baseline`,
      async () => {
        const { code, output } = await runSuite(revision);
        if (code !== 0) console.error(summary(output));
        expect(output).toContain('=== SUMMARY ===');
        expect(code, summary(output)).toBe(0);
      },
      SUITE_TIMEOUT_MS,
    );
  }
});

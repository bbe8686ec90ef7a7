/** Smoke run of the built harness in --quick mode: every server answers every verified call correctly (no speed is asserted). */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CASES } from './cases.js';

const RUN_JS = fileURLToPath(new URL('../dist/run.js', import.meta.url));

interface Output {
  cases: { id: string; reps: number; verifiedAnswers: number; listing?: { tools: number } }[];
  skipped: { id: string; reason: string }[];
}

describe('bench --quick', () => {
  let dir: string;
  let output: Output;
  let exit: { code: number | null; stderr: string; stdout: string };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'agentd-bench-smoke-'));
    const json = join(dir, 'out.json');
    exit = await new Promise((resolve) => {
      execFile(
        process.execPath,
        [RUN_JS, '--quick', '--json', json],
        { timeout: 170_000 },
        (error, stdout, stderr) =>
          resolve({
            code: error === null ? 0 : typeof error.code === 'number' ? error.code : 1,
            stdout,
            stderr,
          }),
      );
    });
    if (exit.code === 0) output = JSON.parse(await readFile(json, 'utf8')) as Output;
  }, 180_000);

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('exits 0 (a wrong answer from any server fails the run)', () => {
    expect(exit.stderr.slice(-2_000)).not.toContain('bench failed');
    expect(exit.code).toBe(0);
  });

  it('ran every case, or skipped only the v2 SDK with a reason', () => {
    const ran = output.cases.map((c) => c.id);
    for (const s of output.skipped) {
      expect(s.id.startsWith('sdk-v2/')).toBe(true);
      expect(s.reason.length).toBeGreaterThan(0);
    }
    expect([...ran, ...output.skipped.map((s) => s.id)].sort()).toEqual(CASES.map((c) => c.id).sort());
  });

  it('verified answers from every server that ran', () => {
    for (const c of output.cases) {
      expect(c.reps, c.id).toBe(1);
      // Load cases: the first call, the script (real servers) and at least one call per load phase.
      expect(c.verifiedAnswers, c.id).toBeGreaterThan(CASES.find((k) => k.id === c.id)?.load ? 2 : 0);
    }
  });

  it('listed all 320 tools in classic exposures and 2 in Code Mode', () => {
    const listed = Object.fromEntries(output.cases.map((c) => [c.id, c.listing?.tools]));
    expect(listed['agentd/stdio']).toBe(320);
    expect(listed['agentd-codemode/stdio']).toBe(2);
    expect(listed['sdk-v1/stdio']).toBe(320);
    expect(listed['floor/stdio']).toBe(320);
  });

  it('prints the ratio table and the targets', () => {
    expect(exit.stdout).toContain('### Ratios (same run)');
    expect(exit.stdout).toContain('### Targets');
  });
});

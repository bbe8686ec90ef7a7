/** Tests for the "N passed, N failed" line test.sh prints after the two vitest runs. */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const script = resolve(dirname(fileURLToPath(import.meta.url)), '../vitest-summary.mjs');
const dirs: string[] = [];
afterAll(() => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

async function summary(reports: (object | undefined)[]): Promise<{ stdout: string; stderr: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'vitest-summary-'));
  dirs.push(dir);
  const files = await Promise.all(
    reports.map(async (report, i) => {
      const file = join(dir, `report-${i}.json`);
      if (report !== undefined) await writeFile(file, JSON.stringify(report));
      return file;
    }),
  );
  return promisify(execFile)(process.execPath, [script, ...files]);
}

describe('vitest-summary', () => {
  it('sums passed and failed tests over the runs', async () => {
    const run = {
      numPassedTests: 10,
      numFailedTests: 2,
      testResults: [{ status: 'failed', assertionResults: [{}] }],
    };
    expect((await summary([run, run])).stdout).toBe('20 passed, 4 failed\n');
  });

  it('counts a test file that failed to load, and a run that left no report, as failures', async () => {
    const run = {
      numPassedTests: 3,
      numFailedTests: 0,
      testResults: [{ status: 'failed', assertionResults: [] }],
    };
    const { stdout, stderr } = await summary([run, undefined]);
    expect(stdout).toBe('3 passed, 2 failed\n');
    expect(stderr).toMatch(/no vitest report/);
  });
});

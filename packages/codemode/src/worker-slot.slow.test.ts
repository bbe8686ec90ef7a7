import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, test } from 'vitest';

const run = promisify(execFile);
const distIndex = fileURLToPath(new URL('../dist/index.js', import.meta.url));

describe('the worker from the built package', () => {
  // The suite runs after `turbo run build`; the worker file must resolve beside dist/index.js.
  test('executes a script through dist in a plain Node process', async () => {
    expect(existsSync(distIndex), `build @agentd/codemode first (${distIndex} is missing)`).toBe(true);
    const script = `
      const { CodeModeRunner } = await import(${JSON.stringify(distIndex)});
      const runner = new CodeModeRunner({ workers: 1 });
      const outcome = await runner.execute({
        code: 'const r = await agentd.query("echo", { n: 20 }); return r.n + 22;',
        namespace: 'agentd',
        operations: [],
        call: async (_kind, _id, args) => args,
      });
      await runner.close();
      console.log(JSON.stringify(outcome));`;
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], {
      timeout: 30_000,
    });
    expect(JSON.parse(stdout)).toEqual({ ok: true, value: 42, logs: [], truncated: false });
  });
});

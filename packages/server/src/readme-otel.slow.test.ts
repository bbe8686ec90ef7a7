/** The README's OpenTelemetry example, run as written (a child process on the built package). */
import { execFile } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, expect, it } from 'vitest';

const root = fileURLToPath(new URL('..', import.meta.url));
// Inside the package, so `@agentd/server` resolves to itself and the SDK to its devDependencies.
const script = `${root}.readme-otel-example.mjs`;
afterAll(() => rmSync(script, { force: true }));

it('prints the handler span nested under the tools/call span parented on _meta', async () => {
  const readme = readFileSync(`${root}README.md`, 'utf8');
  const section = readme.slice(readme.indexOf('## OpenTelemetry'));
  const code = /```ts\n([\s\S]*?)```/.exec(section)?.[1];
  expect(code).toContain('createServerCore');
  writeFileSync(script, code as string);
  const { stdout } = await promisify(execFile)(process.execPath, [script], { cwd: root, timeout: 60_000 });
  const lines = stdout.trim().split('\n');
  const call = /^tools\/call get-weather (\w{16}) parent 00f067aa0ba902b7$/.exec(lines[1] ?? '');
  expect(call).not.toBeNull();
  expect(lines[0]).toBe(`fetch forecast ${lines[0]?.split(' ')[2]} parent ${call?.[1]}`);
});

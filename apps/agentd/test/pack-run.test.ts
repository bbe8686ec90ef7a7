/**
 * The installable daemon: `@agentd/agentd` and the @agentd/* libraries it depends on, packed as
 * they would be published, installed with npm into an empty folder outside the workspace; then
 * `agentd --version`, `npx @agentd/agentd --version`, the daemon on a temp socket, `agentd status`,
 * and a clean stop. Runs under whichever Node runs the suite (20 and 24). Needs a build first.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NPM_INSTALL, runCommand as run, runChecked, scrubbedEnv } from '@agentd/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentdManifest, packAgentd, startInstalledDaemon, version } from './support/packed-agentd.js';

let scratch = '';
let project = '';

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'agentd-pack-run-'));
  const tarballs = join(scratch, 'tarballs');
  project = join(scratch, 'project');
  await mkdir(tarballs);
  await mkdir(project);
  const local = await packAgentd(tarballs);
  await writeFile(join(project, 'package.json'), agentdManifest(local));
  await runChecked('npm', NPM_INSTALL, project);
}, 600_000);

afterAll(async () => {
  if (scratch !== '' && process.env.AGENTD_KEEP_PACK !== '1')
    await rm(scratch, { recursive: true, force: true });
});

describe(`@agentd/agentd installed from its tarball (Node ${process.version})`, () => {
  it('agentd --version and npx @agentd/agentd --version', async () => {
    const bin = join(project, 'node_modules', '.bin', 'agentd');
    const direct = await run(bin, ['--version'], project);
    expect(direct).toMatchObject({ code: 0, stdout: `agentd ${version}\n` });
    const viaNpx = await run('npx', ['--no-install', '@agentd/agentd', '--version'], project);
    expect(viaNpx).toMatchObject({ code: 0, stdout: `agentd ${version}\n` });
  });

  it('starts the daemon on a temp socket, answers agentd status, stops cleanly', async () => {
    const bin = join(project, 'node_modules', '.bin', 'agentd');
    const runtime = await mkdtemp(join(tmpdir(), 'agentd-pack-xdg-'));
    const socket = join(runtime, 'agentd.sock');
    const env = scrubbedEnv({ XDG_RUNTIME_DIR: runtime, XDG_STATE_HOME: runtime });
    const daemon = await startInstalledDaemon(bin, ['--serve', `unix:${socket}`], {
      cwd: project,
      env,
      socket,
    });
    let code: number | null;
    try {
      const status = await run(bin, ['status', '--socket', socket], project, env);
      expect(status.code).toBe(0);
      expect(status.stdout).toContain(`agentd ${version}`);
      const spawned = await run(
        bin,
        ['spawn', '--json', '--socket', socket, 'uppercase installed'],
        project,
        env,
      );
      expect(JSON.parse(spawned.stdout)).toMatchObject({ state: 'succeeded', output: 'INSTALLED' });
    } finally {
      code = await daemon.stop();
    }
    expect(code).toBe(0);
  });
});

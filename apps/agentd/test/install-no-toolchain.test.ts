/**
 * Installing agentd needs no compiler and no Node headers: the packed tarballs installed with npm
 * under a PATH that has only node, npm, npx and sh (no cc, gcc, make or python3), under the Node
 * running the suite and under the Node 24 from npm (which ships no headers). Then `npx agentd
 * --version`, the daemon answering `ping` on its unix socket and binding a `vsock:` target with
 * the prebuilt addon (its startup log says which), and, with the prebuilt addons removed (a
 * machine none matches), the vsock target failing with `vsock_unavailable` and exit code 2.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, realpathSync } from 'node:fs';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { createConnection } from 'node:net';
import { arch, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { NPM_INSTALL, runCommand as run, runChecked, scrubbedEnv } from '@agentd/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentdManifest, packAgentd, startInstalledDaemon, version } from './support/packed-agentd.js';

const NODE_24 = 'node@24.21.0';
/** This machine can bind AF_VSOCK (a VM guest with a vsock device); binding VMADDR_CID_ANY needs no peer. */
const hasVsock = existsSync('/dev/vsock');

/** Resolves `command` on the suite's own PATH to the file it runs. */
function which(command: string): string {
  const found = spawnSync('sh', ['-c', `command -v ${command}`], { encoding: 'utf8', env: scrubbedEnv() });
  if (found.status !== 0) throw new Error(`${command} is not on PATH`);
  return realpathSync(found.stdout.trim());
}

let scratch = '';
let local: Record<string, string> = {};

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'agentd-no-toolchain-'));
  await mkdir(join(scratch, 'tarballs'));
  local = await packAgentd(join(scratch, 'tarballs'));
}, 600_000);

afterAll(async () => {
  if (scratch !== '' && process.env.AGENTD_KEEP_PACK !== '1')
    await rm(scratch, { recursive: true, force: true });
});

/** The suite's Node, and the npm-fetched Node 24 unless that is the one running (the Node 24 pass). */
async function runtimes(): Promise<Array<{ label: string; node: string }>> {
  const own = realpathSync(process.execPath);
  const out = await runChecked('npx', ['-y', '-p', NODE_24, '-c', 'command -v node'], tmpdir());
  const fetched = realpathSync(out.trim());
  return [
    { label: `Node ${process.version}`, node: own },
    ...(fetched === own ? [] : [{ label: `${NODE_24} from npm`, node: fetched }]),
  ];
}

const found = process.platform === 'linux' ? await runtimes() : [];

describe.runIf(process.platform === 'linux').each(found)(
  'agentd installed with no toolchain under $label',
  ({ node }) => {
    let project = '';
    let env: NodeJS.ProcessEnv = {};
    let installOutput = '';

    beforeAll(async () => {
      const dir = await mkdtemp(join(scratch, 'run-'));
      // A PATH of links to node, npm, npx and sh only.
      const bin = join(dir, 'bin');
      await mkdir(bin);
      await symlink(node, join(bin, 'node'));
      for (const tool of ['npm', 'npx', 'sh']) await symlink(which(tool), join(bin, tool));
      env = scrubbedEnv({ XDG_RUNTIME_DIR: dir, XDG_STATE_HOME: dir }, { nodeDir: bin, path: '' });
      project = join(dir, 'project');
      await mkdir(project);
      await writeFile(join(project, 'package.json'), agentdManifest(local));
      const install = await run('npm', NPM_INSTALL, project, env);
      if (install.code !== 0) throw new Error(`npm install failed\n${install.stdout}\n${install.stderr}`);
      installOutput = install.stdout + install.stderr;
    }, 600_000);

    it('has no compiler, make or python3 on PATH, and this Node has no headers', async () => {
      for (const tool of ['cc', 'gcc', 'make', 'python3']) {
        const probe = await run('sh', ['-c', `command -v ${tool}`], project, env);
        expect(probe.code, `${tool} is on the test PATH: ${probe.stdout}`).not.toBe(0);
      }
      const version = await run('node', ['--version'], project, env);
      expect(version.code).toBe(0);
      if (node !== realpathSync(process.execPath)) {
        expect(existsSync(join(dirname(dirname(node)), 'include', 'node', 'node_api.h'))).toBe(false);
      }
    });

    it('installed quietly: nothing about vsock or a native build', () => {
      expect(installOutput).not.toMatch(/vsock|node-gyp|gyp ERR/i);
    });

    it('npx agentd --version', async () => {
      const result = await run('npx', ['--no-install', 'agentd', '--version'], project, env);
      expect(result).toMatchObject({ code: 0, stdout: `agentd ${version}\n` });
    });

    it('the daemon answers ping on its unix socket and binds vsock with the prebuilt addon', async () => {
      const socket = join(env.XDG_RUNTIME_DIR ?? '', 'agentd.sock');
      const port = 20_000 + Math.floor(Math.random() * 40_000);
      const serve = ['--serve', `unix:${socket}`, ...(hasVsock ? ['--serve', `vsock:${port}`] : [])];
      // The bin itself, not through npx: the SIGTERM below must reach the daemon.
      const bin = join(project, 'node_modules', '.bin', 'agentd');
      const daemon = await startInstalledDaemon(bin, serve, { cwd: project, env, socket });
      let code: number | null;
      try {
        expect(await ping(socket)).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
        if (hasVsock) {
          const records = daemon
            .logs()
            .split('\n')
            .filter((line) => line.startsWith('{'))
            .map((line) => JSON.parse(line) as Record<string, unknown>);
          expect(records.find((r) => r.msg === 'vsock addon loaded')).toMatchObject({
            target: `vsock:${port}`,
            kind: 'prebuilt',
            file: expect.stringMatching(
              new RegExp(
                `/node_modules/@agentd/transport-vsock/prebuilds/linux-${arch()}/agentd_vsock\\.napi\\.glibc\\.node$`,
              ),
            ),
          });
        }
      } finally {
        code = await daemon.stop();
      }
      expect(code).toBe(0);
    }, 60_000);

    // Last: it removes the installed prebuilt addons, as on a machine none of them matches.
    it('with no prebuilt addon for the machine, a vsock target fails at bind: vsock_unavailable, exit 2', async () => {
      await rm(join(project, 'node_modules', '@agentd', 'transport-vsock', 'prebuilds'), {
        recursive: true,
        force: true,
      });
      const socket = join(env.XDG_RUNTIME_DIR ?? '', 'agentd-2.sock');
      const result = await run(
        'npx',
        ['--no-install', 'agentd', '--serve', `unix:${socket}`, '--serve', 'vsock:5005'],
        project,
        env,
      );
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toContain(
        'agentd: @agentd/transport-vsock is unavailable: no prebuilt addon matches this machine',
      );
      expect(result.stderr).toContain('"code":"vsock_unavailable"');
    }, 60_000);
  },
);

/** One NDJSON `ping` request on the daemon's unix socket; resolves with the first line back. */
function ping(socket: string): Promise<unknown> {
  return new Promise((done, fail) => {
    const connection = createConnection(socket);
    let buffer = '';
    connection.setEncoding('utf8');
    connection.on('error', fail);
    connection.on('data', (text: string) => {
      buffer += text;
      const end = buffer.indexOf('\n');
      if (end < 0) return;
      connection.destroy();
      done(JSON.parse(buffer.slice(0, end)));
    });
    connection.write('{"jsonrpc":"2.0","id":1,"method":"ping"}\n');
  });
}

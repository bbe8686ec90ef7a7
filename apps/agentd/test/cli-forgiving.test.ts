/**
 * End to end, the first hour's traps: global options before the command, a client that needs no
 * valid config when told where the daemon is, a busy socket that names its holder, the dashboard in
 * the listening lines, a favicon, and `npm start` that stops on SIGTERM.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { type Agentd, cleanEnv, runCli, startAgentd } from './support/agentd-process.js';

const dir = mkdtempSync(join(tmpdir(), 'agentd-forgiving-'));
const running: Agentd[] = [];
afterAll(async () => {
  await Promise.all(running.map((d) => d.stop()));
});

async function started(options: Parameters<typeof startAgentd>[0] = {}): Promise<Agentd> {
  const agentd = await startAgentd(options);
  running.push(agentd);
  return agentd;
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('a CLI that forgives', () => {
  it('takes --config, --socket and --json before the command', async () => {
    const agentd = await started();
    const status = await runCli(['--socket', agentd.socket, '--json', 'status']);
    expect(status.code).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({ name: 'agentd', ready: true });
    const config = join(dir, 'client.json');
    writeFileSync(config, JSON.stringify({ serve: [`unix:${agentd.socket}`] }));
    const viaConfig = await runCli(['--config', config, '--json', 'status']);
    expect(viaConfig.code).toBe(0);
    expect(JSON.parse(viaConfig.stdout)).toMatchObject({ name: 'agentd' });
  });

  it('needs no valid config when told where the daemon is; else names the file and its first problem', async () => {
    const agentd = await started();
    const bad = join(dir, 'typo.json');
    writeFileSync(bad, JSON.stringify({ limits: { maxConcurrentRunz: 2 }, logLevel: 'chatty' }));
    const env = cleanEnv({ AGENTD_CONFIG: bad });
    expect((await runCli(['status', '--socket', agentd.socket], env)).code).toBe(0);
    expect((await runCli(['status'], { ...env, AGENTD_SOCKET: agentd.socket })).code).toBe(0);
    const lost = await runCli(['status'], env);
    expect(lost.code).toBe(2);
    const lines = lost.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(bad);
    expect(lines[0]).toMatch(/\/limits\/maxConcurrentRunz|\/logLevel/);
    expect(lines[0]).toContain('and 1 more');
    expect(lines[0]).toContain('--socket');
  });

  it('a second daemon on a busy socket names the pid that holds it', async () => {
    const agentd = await started();
    const pid = Number(readFileSync(`${agentd.socket}.pid`, 'utf8'));
    expect(pid).toBe(agentd.proc.pid);
    const second = await runCli(['--serve', `unix:${agentd.socket}`]);
    expect(second.code).toBe(1);
    expect(second.stderr).toContain(`agentd pid ${pid} is already listening`);
    // The refused daemon left the holder's pid file alone.
    expect(Number(readFileSync(`${agentd.socket}.pid`, 'utf8'))).toBe(pid);
  });

  it('prints the dashboard URL with the listening lines and serves a favicon', async () => {
    const agentd = await started({ http: true });
    const origin = new URL(agentd.httpUrl as string).origin;
    expect(agentd.stdout.join('')).toContain(`dashboard: ${origin}/ui/`);
    const icon = await fetch(`${origin}/favicon.ico`);
    expect(icon.status).toBe(200);
    expect(icon.headers.get('content-type')).toBe('image/svg+xml');
    expect(await icon.text()).toMatch(/^<svg /);
    // The Host guard covers it like the page.
    const { request } = await import('node:http');
    const status = await new Promise<number | undefined>((resolve, reject) => {
      const req = request(`${origin}/favicon.ico`, { headers: { host: 'evil.example' } }, (res) => {
        res.resume();
        resolve(res.statusCode);
      });
      req.on('error', reject);
      req.end();
    });
    expect(status).toBe(403);
  });
});

// The README's `npm start` runs on the machine's own Node and npm; the suite's second run, on a
// Node that npx fetched (tooling/scripts/test.sh), has no npm of its own beside that node.
const nodeFromNpx = process.execPath.includes('_npx');

describe('npm start', () => {
  it.skipIf(nodeFromNpx)(
    'SIGTERM to npm stops the daemon it started (no orphan)',
    async () => {
      const root = fileURLToPath(new URL('../../..', import.meta.url));
      const runtime = mkdtempSync(join(tmpdir(), 'agentd-npm-start-'));
      const socket = join(runtime, 'a.sock');
      const npm = spawn('npm', ['start', '--', '--serve', `unix:${socket}`], {
        cwd: root,
        env: cleanEnv({ XDG_RUNTIME_DIR: runtime }),
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const npmExited = new Promise<number | null>((resolve) => npm.on('exit', (code) => resolve(code)));
      let out = '';
      await new Promise<void>((resolve, reject) => {
        npm.stdout.on('data', (c: Buffer) => {
          out += c.toString();
          if (out.includes('listening on:')) resolve();
        });
        let err = '';
        npm.stderr.on('data', (c: Buffer) => {
          err = (err + c.toString()).slice(-2000);
        });
        void npmExited.then((code) =>
          reject(new Error(`npm start exited (${code}) before listening: ${err}`)),
        );
      });
      const daemon = Number(readFileSync(`${socket}.pid`, 'utf8'));
      expect(daemon).not.toBe(npm.pid);
      expect(alive(daemon)).toBe(true);
      npm.kill('SIGTERM');
      await npmExited;
      // The daemon drains and exits on the forwarded signal: poll its pid, no fixed sleep.
      await expect.poll(() => alive(daemon), { timeout: 30_000, interval: 100 }).toBe(false);
    },
    180_000,
  );
});

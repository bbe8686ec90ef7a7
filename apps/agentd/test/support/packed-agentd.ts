/**
 * `@agentd/agentd` packed as it would be published, with the @agentd/* libraries it needs
 * (the packing and install steps are `@agentd/test-support`'s), and the installed daemon started
 * on a unix socket until it listens.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { installManifest, packWorkspace } from '@agentd/test-support';

const app = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

export const version = (JSON.parse(readFileSync(join(app, 'package.json'), 'utf8')) as { version: string })
  .version;

/** Packs agentd and its @agentd/* closure into `tarballs`: name → `file:` spec. */
export const packAgentd = (tarballs: string) => packWorkspace(['@agentd/agentd'], tarballs);

/** An empty project that depends on the daemon alone, installed from the tarballs. */
export const agentdManifest = (local: Record<string, string>) => installManifest(local, ['@agentd/agentd']);

export interface InstalledDaemon {
  readonly proc: ChildProcess;
  /** Its stderr so far (the JSON log lines). */
  logs(): string;
  /** SIGTERM, then its exit code. */
  stop(): Promise<number | null>;
}

/**
 * Starts an installed `agentd` bin and resolves once its stdout names `socket` (it prints each
 * target it listens on); rejects, with its logs, if it exits first.
 */
export async function startInstalledDaemon(
  bin: string,
  args: readonly string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; socket: string },
): Promise<InstalledDaemon> {
  const proc = spawn(bin, args, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'] });
  let logs = '';
  proc.stderr?.on('data', (c: Buffer) => {
    logs += c.toString();
  });
  const exited = new Promise<number | null>((done) => proc.on('exit', (code) => done(code)));
  const daemon: InstalledDaemon = {
    proc,
    logs: () => logs,
    stop: () => {
      proc.kill('SIGTERM');
      return exited;
    },
  };
  await new Promise<void>((ready, fail) => {
    let out = '';
    proc.stdout?.on('data', (c: Buffer) => {
      out += c.toString();
      if (out.includes(options.socket)) ready();
    });
    void exited.then((code) => fail(new Error(`agentd exited (${code}) before listening: ${logs}`)));
  });
  return daemon;
}

/**
 * The local operator token: a secret in the user's runtime dir (0600) that lets this machine's own
 * user sign the dashboard in (`agentd ui`). The daemon creates it at first start; `agentd ui
 * --rotate` replaces it, which also ends every dashboard session made with the old one.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, lstatSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { LocalError } from '@agentd/rpc-frame';
import type { AgentdErrorCode } from '../local-errors.js';
import { defaultRuntimeDir } from './runtime-dir.js';

export function operatorTokenPath(env: NodeJS.ProcessEnv = process.env): string {
  return join(defaultRuntimeDir(env), 'operator-token');
}

/** The runtime dir may sit in a shared temp dir: it must be this user's own, private directory. */
function ensurePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const stats = lstatSync(dir);
  const uid = typeof process.getuid === 'function' ? process.getuid() : stats.uid;
  if (!stats.isDirectory() || stats.uid !== uid)
    throw new LocalError<AgentdErrorCode>(
      'unsafe_runtime_dir',
      `${dir} is not a directory owned by this user; refusing to keep the operator token there`,
    );
  if ((stats.mode & 0o077) !== 0) chmodSync(dir, 0o700);
}

/** Written beside, then renamed over: a reader sees the old token or the new one, never half. */
function writeToken(file: string): string {
  const token = randomBytes(32).toString('base64url');
  const temp = `${file}.${process.pid}.tmp`;
  rmSync(temp, { force: true });
  writeFileSync(temp, `${token}\n`, { mode: 0o600, flag: 'wx' });
  renameSync(temp, file);
  return token;
}

/** The token, or undefined when there is none (no daemon has started here yet). */
export function readOperatorToken(file: string): string | undefined {
  try {
    const token = readFileSync(file, 'utf8').trim();
    return token === '' ? undefined : token;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** At the daemon's start: the existing token, else a new one. */
export function ensureOperatorToken(file: string): string {
  ensurePrivateDir(dirname(file));
  return readOperatorToken(file) ?? writeToken(file);
}

/** `agentd ui --rotate`: a new token; sessions signed in with the old one end. */
export function rotateOperatorToken(file: string): string {
  ensurePrivateDir(dirname(file));
  return writeToken(file);
}

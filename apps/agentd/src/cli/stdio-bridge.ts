/**
 * `agentd stdio` joining the user's daemon: when its bridge socket answers, stdin and stdout are
 * relayed to it byte for byte (NDJSON both ways, so both eras, notifications, progress,
 * elicitation, cancellation and subscriptions pass as they are). The bridge socket gives its
 * peers the `stdio` origin: the host keeps exactly the standing of an in-process `agentd stdio`.
 */
import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { dirname, join } from 'node:path';
import { LocalError } from '@agentd/rpc-frame';
import { bridgeSocketPath } from '../config/runtime-dir.js';
import { endpointOf } from './connect.js';
import type { Command } from './parse-args.js';

type StdioCommand = Extract<Command, { kind: 'serve' }>;

export interface BridgeContext {
  env: NodeJS.ProcessEnv;
  cwd: string;
  io: { err(text: string): void };
  stdin: NodeJS.ReadableStream;
  stdout: NodeJS.WritableStream;
  /** The CLI's own script, to start the daemon with (`--daemon start`). */
  cliPath: string;
}

const START_WAIT_MS = 15_000;

function tryConnect(path: string): Promise<Socket | undefined> {
  return new Promise((resolve) => {
    const socket = connect(path);
    socket.once('connect', () => {
      socket.removeAllListeners('error');
      resolve(socket);
    });
    socket.once('error', () => {
      socket.destroy();
      resolve(undefined);
    });
  });
}

/** Polls the bridge socket until the new daemon answers there (or the wait is over). */
async function waitForBridge(path: string, until: number): Promise<Socket | undefined> {
  for (let delay = 50; Date.now() < until; delay = Math.min(delay * 2, 500)) {
    const socket = await tryConnect(path);
    if (socket !== undefined) return socket;
    await new Promise((resolve) => setTimeout(resolve, delay));
  }
  return undefined;
}

/** The user's daemon, in the background, its log in `agentd.log` beside its socket. */
function startDaemonInBackground(command: StdioCommand, socketPath: string, context: BridgeContext): string {
  const log = join(dirname(socketPath), 'agentd.log');
  mkdirSync(dirname(socketPath), { recursive: true, mode: 0o700 });
  const fd = openSync(log, 'a', 0o600);
  try {
    const args = [
      context.cliPath,
      ...(command.configPath === undefined ? [] : ['--config', command.configPath]),
    ];
    spawn(process.execPath, args, {
      cwd: context.cwd,
      env: context.env,
      detached: true,
      stdio: ['ignore', 'ignore', fd],
    }).unref();
  } finally {
    closeSync(fd);
  }
  return log;
}

function relay(socket: Socket, context: BridgeContext): Promise<number> {
  return new Promise((resolve) => {
    let failed = false;
    socket.on('error', (error) => {
      failed = true;
      context.io.err(`agentd: the daemon's bridge failed: ${error.message}\n`);
    });
    // The host closing stdin ends our half: the daemon finishes what is in flight, then ends its half.
    context.stdin.pipe(socket);
    socket.pipe(context.stdout);
    socket.once('close', () => resolve(failed ? 1 : 0));
  });
}

/**
 * Joins the daemon and resolves with the exit code once the session ends; resolves undefined when
 * there is no daemon to join and stdio is to be served in-process.
 */
export async function joinDaemon(command: StdioCommand, context: BridgeContext): Promise<number | undefined> {
  const mode = command.daemon ?? 'auto';
  if (mode === 'off') return undefined;
  const connection = command.configPath === undefined ? {} : { configPath: command.configPath };
  let endpoint: ReturnType<typeof endpointOf> | undefined;
  try {
    endpoint = endpointOf(connection, context.env, context.cwd);
  } catch (error) {
    // Serving in-process reports a bad config in full (or serves without a socket to find).
    if (mode !== 'auto' || !(error instanceof LocalError)) throw error;
    return undefined;
  }
  if (endpoint.kind !== 'unix') {
    if (mode === 'auto') return undefined;
    context.io.err('agentd: the daemon serves no unix socket here, which agentd stdio needs to join it\n');
    return 1;
  }
  const bridge = bridgeSocketPath(endpoint.path);
  let socket = await tryConnect(bridge);
  if (socket === undefined && mode === 'start') {
    const log = startDaemonInBackground(command, endpoint.path, context);
    socket = await waitForBridge(bridge, Date.now() + START_WAIT_MS);
    if (socket === undefined) {
      context.io.err(`agentd: started the daemon, but it did not answer at ${bridge} (see ${log})\n`);
      return 1;
    }
  }
  if (socket === undefined) {
    if (mode === 'auto') return undefined;
    context.io.err(
      `agentd: no agentd daemon answers at ${bridge} (start one with agentd, or use --daemon start)\n`,
    );
    return 1;
  }
  return relay(socket, context);
}

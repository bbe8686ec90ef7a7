/** Races on a unix socket path: connections before serveUnix attaches, and daemons starting together. */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { once } from 'node:events';
import { link, mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface, type Interface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { createServerCore, silentLogger } from '@agentd/server';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bindUnix } from './bind-unix.js';
import { serveUnix } from './serve-unix.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agentd-race-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

function core() {
  return createServerCore({
    handler: { capabilities: () => ({}), handle: async () => ({ ok: true }) },
    serverInfo: { name: 'race-test', version: '1' },
    logger: silentLogger,
  });
}

function firstLine(socket: net.Socket): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    let buffer = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      buffer += chunk;
      const newline = buffer.indexOf('\n');
      if (newline !== -1) resolve(JSON.parse(buffer.slice(0, newline)));
    });
    socket.once('error', reject);
  });
}

/** A socket file nobody listens on (what a crashed daemon leaves behind). */
async function staleSocket(path: string): Promise<void> {
  const scratch = `${path}.scratch`;
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(scratch, resolve));
  await link(scratch, path);
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

describe('bindUnix → serveUnix', () => {
  it('holds a connection accepted before serveUnix attaches, serves it, and close() settles', async () => {
    const path = join(dir, 'early.sock');
    const listener = await bindUnix(path);
    const accepted = once(listener, 'connection');
    const socket = net.connect(path);
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write('{"jsonrpc":"2.0","id":1,"method":"ping"}\n');
    // The listener has accepted it with no one serving yet.
    await accepted;
    const answer = firstLine(socket);
    const server = serveUnix(listener, core());
    expect(await answer).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
    socket.destroy();
    await server.close(1_000);
  });

  it('closing a listener that was never served settles, dropping what it held', async () => {
    const path = join(dir, 'unserved.sock');
    const listener = await bindUnix(path);
    const accepted = once(listener, 'connection');
    const socket = net.connect(path);
    const ended = new Promise((resolve) => socket.once('close', resolve));
    await new Promise((resolve) => socket.once('connect', resolve));
    await accepted;
    await new Promise<void>((resolve) => listener.close(() => resolve()));
    await ended;
  });
});

class Racer {
  readonly child: ChildProcessWithoutNullStreams;
  private readonly lines: Interface;
  private readonly waiting: Array<(line: string) => void> = [];

  constructor() {
    const script = fileURLToPath(new URL('./test-support/bind-race-child.mjs', import.meta.url));
    this.child = spawn(process.execPath, [script], { stdio: 'pipe' });
    this.lines = createInterface({ input: this.child.stdout });
    this.lines.on('line', (line) => this.waiting.shift()?.(line));
  }

  send(line: string): Promise<string> {
    const reply = new Promise<string>((resolve) => this.waiting.push(resolve));
    this.child.stdin.write(`${line}\n`);
    return reply;
  }

  stop(): void {
    this.child.stdin.end();
    this.child.kill();
  }
}

/** Both racers bind the path `prepare` made, 25 times: exactly one wins and serves on it. */
async function race(prepare: (path: string) => Promise<void>): Promise<void> {
  const racers = [new Racer(), new Racer()];
  try {
    for (let round = 0; round < 25; round += 1) {
      const path = join(dir, `r${round}.sock`);
      await prepare(path);
      const outcomes = await Promise.all(racers.map((racer) => racer.send(`go ${path}`)));
      expect([...outcomes].sort(), `round ${round}`).toEqual(['lost address_in_use', 'won']);
      // The file on disk is the winner's live socket.
      const socket = net.connect(path);
      const answer = firstLine(socket);
      socket.write('{"jsonrpc":"2.0","id":1,"method":"whoami","params":{"_meta":{}}}\n');
      const [first, second] = await Promise.all([racers[0]?.send('who'), racers[1]?.send('who')]);
      const winner = first === 'won' ? racers[0] : second === 'won' ? racers[1] : undefined;
      expect(((await answer).result as { pid?: number } | undefined)?.pid).toBe(winner?.child.pid);
      socket.destroy();
      await Promise.all(racers.map((racer) => racer.send('release')));
    }
  } finally {
    for (const racer of racers) racer.stop();
  }
}

describe('two processes binding one path together', () => {
  it('on a stale socket: exactly one wins, the other fails with address_in_use, every round', async () => {
    await race(staleSocket);
  }, 60_000);

  // Nothing there: both take the lock-free path; bind(2) is atomic, so the loser falls back to
  // the locked probe, which finds the winner live.
  it('on a fresh path: exactly one wins, the other fails with address_in_use, every round', async () => {
    await race(async (path) => {
      await rm(path, { force: true });
    });
  }, 60_000);
});

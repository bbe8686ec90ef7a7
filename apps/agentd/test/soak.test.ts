/**
 * Soak: 250,000 cheap calls per transport (stdio, unix, HTTP legacy sessions, HTTP stateless
 * 2026-07-28), pipelined, while subscriptions (and connections, sessions, listen streams) churn
 * beside them, against real daemon processes. A transport's daemon live heap (after a full
 * collection) after its last 50,000 calls must stay within a small bound of the same figure after
 * the first 50,000: a leak of a few bytes per call, subscription or connection shows up here. RSS is
 * reported and bounded loosely too, for what the heap cannot see.
 *
 * AGENTD_SOAK_CALLS overrides the number of calls per transport (a quick local run).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { type IncomingMessage, request } from 'node:http';
import { createConnection, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { modernMeta } from '@agentd/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Agentd, CLI, cleanEnv, startAgentd } from './support/agentd-process.js';
import { type HeapSample, liveHeapEnv, liveHeapReader } from './support/live-heap.js';
import { type Lane, Meter, runCalls } from './support/soak-meter.js';

const CALLS = Number(process.env.AGENTD_SOAK_CALLS ?? 250_000);
/** Memory is compared after the first and after the last this many calls. */
const WINDOW = Math.min(50_000, Math.floor(CALLS / 5));
const MiB = 1024 * 1024;
/** How far the live heap may move between the two samples: 40 bytes per call at the default CALLS. */
const LIVE_BOUND = 8 * MiB;
/**
 * How far RSS may move: allocator and collector timing alone move it by up to ~40 MB on Node 24,
 * so this only catches memory the heap does not see (native buffers, handles) leaking fast.
 */
const RSS_BOUND = 96 * MiB;
/**
 * The daemon's young generation pinned to one size: newer V8 (Node 24) grows it lazily with the
 * machine's memory, which reads as RSS growth over the run. Old-generation growth, which is
 * what a leak is, still shows in full.
 */
const steadyHeap = (dir: string) => liveHeapEnv(dir, '--max-semi-space-size=16');
/** Calls in flight on one lane (an NDJSON stream or a pipelined HTTP/1.1 connection). */
const HTTP_LANES = 4;
const LEGACY_VERSION = '2025-11-25';
const MODERN_VERSION = '2026-07-28';
/** Subscribable by any peer (management peers may also watch agent://events). */
const WATCHED = 'agent://capabilities';

type Json = Record<string, unknown>;

const rpc = (id: number, method: string, params?: Json): string =>
  JSON.stringify(
    params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params },
  );

/** An NDJSON stream as a lane: requests numbered from `firstId`, answers matched by line. */
function ndjsonLane(input: Readable, output: Writable, call: (n: number) => string): Lane {
  const lane: Lane = { send: (n) => output.write(`${call(n)}\n`), onAnswer: () => {} };
  let buffer = '';
  input.setEncoding('utf8');
  input.on('data', (chunk: string) => {
    buffer += chunk;
    let from = 0;
    let newline = buffer.indexOf('\n');
    while (newline !== -1) {
      const line = buffer.slice(from, newline);
      from = newline + 1;
      newline = buffer.indexOf('\n', from);
      // Answers only: notifications (a watched resource's updates) have no id.
      if (line.startsWith('{"jsonrpc":"2.0","id"')) lane.onAnswer(line.includes('"result"'), line);
    }
    buffer = buffer.slice(from);
  });
  return lane;
}

/** Sends one request on an NDJSON stream and waits for its answer (handshakes and churn). */
function ndjsonOnce(
  input: Readable,
  output: Writable,
  id: number,
  method: string,
  params?: Json,
): Promise<string> {
  return new Promise((resolve, reject) => {
    let buffer = '';
    const prefix = `{"jsonrpc":"2.0","id":${id},`;
    const onData = (chunk: Buffer | string) => {
      buffer += chunk.toString();
      const at = buffer.indexOf(prefix);
      const end = at === -1 ? -1 : buffer.indexOf('\n', at);
      if (end === -1) return;
      input.off('data', onData);
      input.off('end', onEnd);
      resolve(buffer.slice(at, end));
    };
    const onEnd = () => reject(new Error(`stream ended waiting for ${method}`));
    input.on('data', onData);
    input.on('end', onEnd);
    output.write(`${rpc(id, method, params)}\n`);
  });
}

async function legacyHandshake(input: Readable, output: Writable): Promise<void> {
  const init = await ndjsonOnce(input, output, 0, 'initialize', {
    protocolVersion: LEGACY_VERSION,
    capabilities: {},
    clientInfo: { name: 'soak', version: '1' },
  });
  if (!init.includes('"result"')) throw new Error(`initialize failed: ${init}`);
  output.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
}

/**
 * The NDJSON call mix: pings, and every 500th call subscribes to WATCHED, every 500th + 250
 * unsubscribes again (the registry gains and loses an entry each time).
 */
const ndjsonCall = (n: number): string => {
  const phase = n % 500;
  if (phase === 0) return rpc(n + 1, 'resources/subscribe', { uri: WATCHED });
  if (phase === 250) return rpc(n + 1, 'resources/unsubscribe', { uri: WATCHED });
  return rpc(n + 1, 'ping');
};

/** A raw HTTP/1.1 connection with pipelined POSTs (node:http's client would cost more CPU than the server). */
async function httpLane(
  port: number,
  call: (n: number) => { body: string; headers: Record<string, string> },
): Promise<Lane & { close(): void }> {
  const socket: Socket = createConnection({ host: '127.0.0.1', port });
  await new Promise((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  socket.setNoDelay(true);
  const lane = {
    onAnswer: (_ok: boolean, _text: string) => {},
    send(n: number) {
      const { body, headers } = call(n);
      let head = `POST /mcp HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\ncontent-length: ${Buffer.byteLength(body)}\r\n`;
      for (const [name, value] of Object.entries(headers)) head += `${name}: ${value}\r\n`;
      socket.write(`${head}\r\n${body}`);
    },
    close: () => socket.destroy(),
  };
  let pending: Buffer = Buffer.alloc(0);
  socket.on('data', (chunk: Buffer) => {
    pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
    for (;;) {
      const headEnd = pending.indexOf('\r\n\r\n');
      if (headEnd === -1) return;
      const head = pending.toString('latin1', 0, headEnd);
      const status = Number(head.slice(9, 12));
      const length = /\r\ncontent-length: *(\d+)/i.exec(head);
      let body: string;
      let rest: number;
      if (length !== null) {
        rest = headEnd + 4 + Number(length[1]);
        if (pending.length < rest) return;
        body = pending.toString('utf8', headEnd + 4, rest);
      } else {
        // A chunked answer (an SSE stream that ended): read chunks up to the last, empty one.
        const chunks = readChunked(pending, headEnd + 4);
        if (chunks === undefined) return;
        ({ body, rest } = chunks);
      }
      pending = pending.subarray(rest);
      const message = body.startsWith('{') ? body : lastSseData(body);
      lane.onAnswer(status === 200 && message.includes('"result"'), `${status} ${body}`);
    }
  });
  socket.on('close', () => {
    if (pending.length > 0)
      lane.onAnswer(false, `connection closed mid-answer: ${pending.toString().slice(0, 200)}`);
  });
  return lane;
}

function readChunked(buffer: Buffer, from: number): { body: string; rest: number } | undefined {
  const parts: Buffer[] = [];
  let at = from;
  for (;;) {
    const lineEnd = buffer.indexOf('\r\n', at);
    if (lineEnd === -1) return undefined;
    const size = Number.parseInt(buffer.toString('latin1', at, lineEnd), 16);
    if (buffer.length < lineEnd + 2 + size + 2) return undefined;
    if (size === 0) return { body: Buffer.concat(parts).toString('utf8'), rest: lineEnd + 4 };
    parts.push(buffer.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
}

function lastSseData(body: string): string {
  const data = body.split('\n').filter((line) => line.startsWith('data: '));
  return (data.at(-1) ?? '').slice(6);
}

/** One node:http POST (churn: handshakes, subscriptions, listen streams). */
function post(
  port: number,
  body: string,
  headers: Record<string, string>,
  method = 'POST',
): Promise<{ res: IncomingMessage; text: () => Promise<string> }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: '/mcp',
        method,
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'content-length': Buffer.byteLength(body),
          ...headers,
        },
      },
      (res) => {
        const text = () =>
          new Promise<string>((done, fail) => {
            let all = '';
            res.setEncoding('utf8');
            res.on('data', (chunk: string) => {
              all += chunk;
            });
            res.on('end', () => done(all));
            res.on('error', fail);
          });
        resolve({ res, text });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** Runs `step` over and over until `done()`; resolves once the last step finished. */
async function churnUntil(done: () => boolean, step: () => Promise<void>): Promise<void> {
  while (!done()) await step();
}

async function openLegacySession(port: number): Promise<string> {
  const init = await post(
    port,
    rpc(0, 'initialize', {
      protocolVersion: LEGACY_VERSION,
      capabilities: {},
      clientInfo: { name: 'soak', version: '1' },
    }),
    {},
  );
  const text = await init.text();
  if (init.res.statusCode !== 200) throw new Error(`initialize: ${init.res.statusCode} ${text}`);
  const session = String(init.res.headers['mcp-session-id']);
  const initialized = await post(port, '{"jsonrpc":"2.0","method":"notifications/initialized"}', {
    'mcp-session-id': session,
    'mcp-protocol-version': LEGACY_VERSION,
  });
  await initialized.text();
  return session;
}

function expectSteady(meter: Meter, transport: string): void {
  const report = meter.report(transport);
  // Printed so a run also says how long each transport took.
  console.info(report);
  expect(meter.failures, report).toEqual([]);
  expect(meter.done, report).toBe(CALLS);
  expect(meter.late.live - meter.early.live, report).toBeLessThan(LIVE_BOUND);
  expect(meter.late.rss - meter.early.rss, report).toBeLessThan(RSS_BOUND);
}

describe('soak', () => {
  let agentd: Agentd;
  let port: number;
  let shared: () => Promise<HeapSample>;
  beforeAll(async () => {
    const probeDir = mkdtempSync(join(tmpdir(), 'agentd-soak-heap-'));
    agentd = await startAgentd({ http: true, env: steadyHeap(probeDir) });
    shared = liveHeapReader(agentd.proc.pid as number, probeDir);
    port = Number(new URL(agentd.httpUrl as string).port);
  });
  afterAll(async () => {
    await agentd?.stop();
  });

  it('stdio: the daemon memory stays steady over 250,000 calls with subscriptions churning', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentd-soak-'));
    writeFileSync(join(dir, 'agentd.json'), '{}');
    const child: ChildProcess = spawn(
      process.execPath,
      [CLI, '--config', join(dir, 'agentd.json'), '--serve', 'stdio'],
      {
        env: cleanEnv({ XDG_RUNTIME_DIR: dir, XDG_STATE_HOME: dir, ...steadyHeap(dir) }),
        stdio: ['pipe', 'pipe', 'ignore'],
      },
    );
    const exited = new Promise((resolve) => child.once('exit', resolve));
    try {
      const stdin = child.stdin as Writable;
      const stdout = child.stdout as Readable;
      await legacyHandshake(stdout, stdin);
      const meter = new Meter(liveHeapReader(child.pid as number, dir), WINDOW);
      await runCalls(meter, [ndjsonLane(stdout, stdin, ndjsonCall)], CALLS);
      expectSteady(meter, 'stdio');
    } finally {
      child.stdin?.end();
      child.kill('SIGTERM');
      await exited;
    }
  }, 600_000);

  it('unix: the daemon memory stays steady over 250,000 calls with connections and subscriptions churning', async () => {
    const connect = async (): Promise<Socket> => {
      const socket = createConnection(agentd.socket);
      await new Promise((resolve, reject) => {
        socket.once('connect', resolve);
        socket.once('error', reject);
      });
      await legacyHandshake(socket, socket);
      return socket;
    };
    const sockets = await Promise.all([connect(), connect()]);
    const meter = new Meter(shared, WINDOW);
    let finished = false;
    // Beside the calls: connections that subscribe to two resources and hang up.
    const churn = churnUntil(
      () => finished,
      async () => {
        const side = await connect();
        await ndjsonOnce(side, side, 1, 'resources/subscribe', { uri: WATCHED });
        await ndjsonOnce(side, side, 2, 'resources/subscribe', { uri: 'agent://events' });
        side.destroy();
        meter.churned += 1;
      },
    );
    try {
      await runCalls(
        meter,
        sockets.map((socket) => ndjsonLane(socket, socket, ndjsonCall)),
        CALLS,
      );
    } finally {
      finished = true;
      await churn;
      for (const socket of sockets) socket.destroy();
    }
    expectSteady(meter, 'unix');
  }, 600_000);

  it('HTTP legacy sessions: the daemon memory stays steady over 250,000 calls with sessions and subscriptions churning', async () => {
    const sessions = await Promise.all(Array.from({ length: HTTP_LANES }, () => openLegacySession(port)));
    const lanes = await Promise.all(
      sessions.map((session) =>
        httpLane(port, (n) => ({
          body: ndjsonCall(n),
          headers: { 'mcp-session-id': session, 'mcp-protocol-version': LEGACY_VERSION },
        })),
      ),
    );
    const meter = new Meter(shared, WINDOW);
    let finished = false;
    // Beside the calls: sessions that subscribe and are ended by the client.
    const churn = churnUntil(
      () => finished,
      async () => {
        const session = await openLegacySession(port);
        const headers = { 'mcp-session-id': session, 'mcp-protocol-version': LEGACY_VERSION };
        const subscribed = await post(port, rpc(1, 'resources/subscribe', { uri: WATCHED }), headers);
        const text = await subscribed.text();
        meter.check(text.includes('"result"'), text);
        const ended = await post(port, '', headers, 'DELETE');
        await ended.text();
        meter.churned += 1;
      },
    );
    try {
      await runCalls(meter, lanes, CALLS);
    } finally {
      finished = true;
      await churn;
      for (const lane of lanes) lane.close();
    }
    expectSteady(meter, 'HTTP legacy');
  }, 600_000);

  it('HTTP stateless (2026-07-28): the daemon memory stays steady over 250,000 calls with listen streams churning', async () => {
    const modernHeaders = (method: string) => ({
      'mcp-protocol-version': MODERN_VERSION,
      'mcp-method': method,
    });
    const lanes = await Promise.all(
      Array.from({ length: HTTP_LANES }, () =>
        httpLane(port, (n) => ({
          body: rpc(n + 1, 'tools/list', { _meta: modernMeta() }),
          headers: modernHeaders('tools/list'),
        })),
      ),
    );
    const meter = new Meter(shared, WINDOW);
    let finished = false;
    // Beside the calls: listen streams that are acknowledged, then dropped by the client.
    const churn = churnUntil(
      () => finished,
      async () => {
        const { res } = await post(
          port,
          rpc(1, 'subscriptions/listen', {
            _meta: modernMeta(),
            notifications: { toolsListChanged: true, resourceSubscriptions: [WATCHED] },
          }),
          modernHeaders('subscriptions/listen'),
        );
        await new Promise<void>((resolve) => {
          let seen = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => {
            seen += chunk;
            if (seen.includes('notifications/subscriptions/acknowledged')) resolve();
          });
          res.on('end', () => {
            meter.check(false, `listen stream ended: ${seen}`);
            resolve();
          });
        });
        res.destroy();
        meter.churned += 1;
      },
    );
    try {
      await runCalls(meter, lanes, CALLS);
    } finally {
      finished = true;
      await churn;
      for (const lane of lanes) lane.close();
    }
    expectSteady(meter, 'HTTP stateless');
  }, 600_000);
});

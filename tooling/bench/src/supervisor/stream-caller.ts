/**
 * The agentd side's MCP callers, in a process of their own as the floor is: RUNS raw NDJSON
 * connections to agentd's unix socket (2026-07-28, no handshake), each spawning one streaming run
 * synchronously, recording each progress notification's latency from the agent's write to its
 * arrival here. Lines are split and parsed as the floor does (readline, JSON.parse), so the caller
 * costs what the floor's reader costs and the driver's own work (sampling the daemon's RSS) stays
 * out of the measured path. It connects, prints `ready`, waits for `go START_AT SPREAD_MS` on stdin
 * (run i starts streaming at START_AT + i × SPREAD_MS / RUNS) and prints `{received, latencies}` as JSON.
 * Usage: `node dist/supervisor/stream-caller.js SOCKET AGENT RUNS EVENTS INTERVAL_MS`.
 */
import { connect, type Socket } from 'node:net';
import { createInterface } from 'node:readline';
import { MetaKey, MODERN_VERSION } from '@agentd/lifecycle';
import { awaitGo, now } from './go-signal.js';

const [socketPath, agent, ...numbers] = process.argv.slice(2) as [string, string, ...string[]];
const [runs, events, interval] = numbers.map(Number) as [number, number, number];

const META = {
  [MetaKey.protocolVersion]: MODERN_VERSION,
  [MetaKey.clientCapabilities]: {},
  [MetaKey.clientInfo]: { name: 'agentd-bench', version: '0.0.0' },
};

interface Message {
  id?: number;
  method?: string;
  params?: { message?: string };
  result?: { isError?: boolean; structuredContent?: { state?: string } };
  error?: unknown;
}

async function open(): Promise<Socket> {
  const socket = connect(socketPath);
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  return socket;
}

/** Spawns the agent with the stream instruction; resolves with the events' count once the run ended. */
function streamOne(socket: Socket, latencies: number[], startAt: number): Promise<number> {
  let received = 0;
  return new Promise((resolve, reject) => {
    socket.once('error', reject);
    const lines = createInterface({ input: socket, crlfDelay: Number.POSITIVE_INFINITY });
    lines.on('line', (line) => {
      const message = JSON.parse(line) as Message;
      if (message.method === 'notifications/progress') {
        latencies.push(now() - Number(message.params?.message?.slice(2)));
        received += 1;
      } else if (message.id === 1) {
        const state = message.result?.structuredContent?.state;
        if (message.error !== undefined || message.result?.isError === true || state !== 'succeeded')
          reject(new Error(`the run did not succeed: ${line}`));
        else resolve(received);
      }
    });
    const params = {
      name: 'command_subagent.spawn',
      arguments: { agent, instruction: `stream ${events} ${interval} ${startAt}` },
      _meta: { ...META, progressToken: 'stream' },
    };
    socket.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params })}\n`);
  });
}

const sockets = await Promise.all(Array.from({ length: runs }, open));
const startOf = await awaitGo(runs);
const latencies: number[] = [];
const received = await Promise.all(sockets.map((socket, i) => streamOne(socket, latencies, startOf(i))));
for (const socket of sockets) socket.end();
process.stdout.write(`${JSON.stringify({ received: received.reduce((a, b) => a + b, 0), latencies })}\n`);

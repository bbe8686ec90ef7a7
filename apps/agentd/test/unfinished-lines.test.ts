/**
 * End to end: peers that send a huge unfinished line and vanish, round after round, neither grow the
 * daemon nor leave sockets behind once the input budget has closed them.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { NdjsonClient } from '@agentd/test-support';
import { describe, expect, it, vi } from 'vitest';
import { startAgentd } from './support/agentd-process.js';

const PEERS = 24;
const LINE_BYTES = 15 * 1024 * 1024;
const CHUNK = Buffer.alloc(1024 * 1024, 'x');
const ROUNDS = 10;
const MiB = 1024 * 1024;

function rssBytes(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(match?.[1]) * 1024;
}

function openFds(pid: number): number {
  return readdirSync(`/proc/${pid}/fd`).length;
}

/** Sends up to LINE_BYTES of one line that never ends, honouring backpressure, then disconnects. */
async function unfinishedLine(socketPath: string): Promise<void> {
  const socket = createConnection(socketPath);
  socket.on('error', () => {});
  socket.on('data', () => {});
  await new Promise((resolve) => socket.once('connect', resolve));
  let over = false;
  const stop = () => {
    over = true;
    socket.emit('drain');
  };
  socket.once('end', stop);
  socket.once('close', stop);
  socket.write('{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"');
  for (let sent = 0; sent < LINE_BYTES && !over; sent += CHUNK.length) {
    if (!socket.write(CHUNK)) await new Promise((resolve) => socket.once('drain', resolve));
  }
  socket.destroy();
}

describe('unfinished lines from peers that disconnect', () => {
  it('release their buffers and sockets: RSS after 10 rounds stays within 64 MB of round 1', async () => {
    // A quarter of the default budget: the bound under test is the daemon's, and a smaller budget
    // keeps the garbage a collection may not have reclaimed yet well inside the 64 MB margin.
    const agentd = await startAgentd({ config: { connections: { maxBufferedInputBytes: 16 * MiB } } });
    const pid = agentd.proc.pid as number;
    try {
      const client = await NdjsonClient.connect(agentd.socket);
      await client.modernResult('tools/list');
      const fdsIdle = openFds(pid);
      const samples: number[] = [];
      for (let round = 1; round <= ROUNDS; round++) {
        const since = agentd.logs.length;
        await Promise.all(Array.from({ length: PEERS }, () => unfinishedLine(agentd.socket)));
        // The budget fired for this round's peers ...
        await agentd.waitForLog((log) => String(log.msg).includes('server input budget exhausted'), {
          since,
        });
        // ... and every socket they left is closed again (the leak kept them, and their buffers, open).
        await vi.waitFor(() => expect(openFds(pid)).toBeLessThanOrEqual(fdsIdle), {
          timeout: 30_000,
          interval: 100,
        });
        // sleep-is-the-point: no event says the daemon is idle; RSS is read after it settles.
        await new Promise((resolve) => setTimeout(resolve, 1_500));
        samples.push(rssBytes(pid));
      }
      const growth = (samples.at(-1) as number) - (samples[0] as number);
      expect(
        growth,
        `RSS per round (MB): ${samples.map((b) => Math.round(b / MiB)).join(', ')}`,
      ).toBeLessThan(64 * MiB);
      // The daemon still serves.
      await client.modernResult('tools/list');
      client.end();
    } finally {
      await agentd.stop();
    }
  }, 240_000);
});

/**
 * End to end: peers that send a huge unfinished line and vanish, round after round, neither grow the
 * daemon nor leave sockets behind once the input budget has closed them.
 */
import { mkdtempSync, readdirSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NdjsonClient } from '@agentd/test-support';
import { describe, expect, it, vi } from 'vitest';
import { startAgentd } from './support/agentd-process.js';
import { type HeapSample, liveHeapEnv, liveHeapReader } from './support/live-heap.js';

const PEERS = 24;
const LINE_BYTES = 15 * 1024 * 1024;
const CHUNK = Buffer.alloc(1024 * 1024, 'x');
const ROUNDS = 10;
const MiB = 1024 * 1024;

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
  it('release their buffers and sockets: the live heap after 10 rounds stays within 8 MB of round 1', async () => {
    // A quarter of the default budget: the bound under test is the daemon's. Each round buffers up
    // to 16 MB, so one round's lines kept alive would break the 8 MB bound.
    const probeDir = mkdtempSync(join(tmpdir(), 'agentd-lines-heap-'));
    const agentd = await startAgentd({
      config: { connections: { maxBufferedInputBytes: 16 * MiB } },
      env: liveHeapEnv(probeDir),
    });
    const pid = agentd.proc.pid as number;
    const liveHeap = liveHeapReader(pid, probeDir);
    try {
      const client = await NdjsonClient.connect(agentd.socket);
      await client.modernResult('tools/list');
      const fdsIdle = openFds(pid);
      const samples: HeapSample[] = [];
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
        samples.push(await liveHeap());
      }
      const growth = (samples.at(-1) as HeapSample).live - (samples[0] as HeapSample).live;
      const mb = (bytes: number) => Math.round(bytes / MiB);
      expect(
        growth,
        `live heap (RSS) per round, MB: ${samples.map((s) => `${mb(s.live)} (${mb(s.rss)})`).join(', ')}`,
      ).toBeLessThan(8 * MiB);
      // The daemon still serves.
      await client.modernResult('tools/list');
      client.end();
    } finally {
      await agentd.stop();
    }
  }, 240_000);
});

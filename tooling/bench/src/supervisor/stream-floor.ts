/**
 * The floor: a bare Node process that spawns the same agents, asks each for its stream and reads
 * their output, recording each event's latency from the agent's write to its arrival here. It
 * waits for `go` on stdin (the driver reads its idle RSS first) and prints its latencies as JSON.
 * Usage: `node dist/supervisor/stream-floor.js RUNS EVENTS INTERVAL_MS`; `go START_AT SPREAD_MS` on stdin
 * starts it (run i streams from START_AT + i × SPREAD_MS / RUNS on).
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { awaitGo, now } from './go-signal.js';

const AGENT = fileURLToPath(new URL('./stream-agent.js', import.meta.url));
const [runs, events, interval] = process.argv.slice(2).map(Number) as [number, number, number];

async function streamOne(latencies: number[], startAt: number): Promise<number> {
  const child = spawn(process.execPath, [AGENT], { stdio: ['pipe', 'pipe', 'inherit'] });
  let received = 0;
  const lines = createInterface({ input: child.stdout, crlfDelay: Number.POSITIVE_INFINITY });
  const done = new Promise<void>((resolve) => {
    lines.on('line', (line) => {
      const message = JSON.parse(line) as { id?: number; params?: { message?: string } };
      if (message.id === 1) {
        resolve();
        return;
      }
      const written = Number(message.params?.message?.slice(2));
      latencies.push(now() - written);
      received += 1;
    });
  });
  child.stdin.write(
    `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'run', params: { instruction: `stream ${events} ${interval} ${startAt}` } })}\n`,
  );
  await done;
  child.stdin.end();
  await once(child, 'exit');
  return received;
}

const startOf = await awaitGo(runs);
const latencies: number[] = [];
const received = await Promise.all(Array.from({ length: runs }, (_, i) => streamOne(latencies, startOf(i))));
process.stdout.write(`${JSON.stringify({ received: received.reduce((a, b) => a + b, 0), latencies })}\n`);

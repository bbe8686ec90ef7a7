/**
 * The benchmark's agent: an agent-protocol agent (apps/agentd/docs/agent-protocol.md) that answers
 * `run` with `stream N INTERVAL_MS START_AT` by writing N progress events from the wall-clock time
 * START_AT on (every run starts streaming together, after all were spawned), each carrying the
 * wall-clock time (ms, sub-ms precision) it wrote it, then the result. The floor and agentd run this same file.
 */
import { createInterface } from 'node:readline';
import { now } from './go-signal.js';

function send(message: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
}

async function stream(id: unknown, count: number, intervalMs: number, startAt: number): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, startAt - now())));
  for (let i = 1; i <= count; i += 1) {
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
    send({ method: 'event', params: { type: 'progress', progress: i, total: count, message: `t=${now()}` } });
  }
  send({ id, result: { text: `streamed ${count}` } });
}

const lines = createInterface({ input: process.stdin, crlfDelay: Number.POSITIVE_INFINITY });
lines.on('line', (line) => {
  const message = JSON.parse(line) as { id?: unknown; method?: string; params?: { instruction?: unknown } };
  if (message.id === undefined) return;
  if (message.method === 'shutdown') {
    send({ id: message.id, result: {} });
    process.exit(0);
  }
  const [verb, count, interval, startAt] = String(message.params?.instruction ?? '').split(' ');
  if (message.method !== 'run' || verb !== 'stream') {
    send({
      id: message.id,
      error: { code: -32602, message: 'expected run "stream N INTERVAL_MS START_AT"' },
    });
    return;
  }
  void stream(message.id, Number(count), Number(interval), Number(startAt ?? 0));
});
lines.on('close', () => process.exit(0));

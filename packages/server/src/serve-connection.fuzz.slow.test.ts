/** Property: whatever bytes a peer sends, the loop answers what it can, never crashes, and keeps serving. */
import { PassThrough } from 'node:stream';
import { memoryLogger, testHandler } from '@agentd/test-support';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { serveStreams } from './serve-connection.js';
import { createServerCore } from './server-core.js';

/** Sends `chunks`, then a ping; resolves with every parsed output line once the ping is answered. */
async function run(chunks: Uint8Array[]): Promise<Array<Record<string, unknown>>> {
  const core = createServerCore({
    handler: testHandler(),
    serverInfo: { name: 'f', version: '0' },
    logger: memoryLogger(),
  });
  const input = new PassThrough();
  const output = new PassThrough();
  const handle = serveStreams(
    input,
    output,
    'management',
    core,
    { maxFrameBytes: 4096 },
    {
      graceful: () => output.end(),
      abrupt: () => output.destroy(),
    },
  );
  let text = '';
  output.on('data', (chunk: Buffer) => {
    text += chunk.toString('utf8');
  });
  // A newline first ends whatever partial line the garbage left, so the ping stands alone.
  for (const chunk of chunks) input.write(chunk);
  input.end('\n{"jsonrpc":"2.0","id":"final-ping","method":"ping"}\n');
  await handle.closed;
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

const jsonish = fc.oneof(
  fc.json(),
  fc.constantFrom('{', '}', '"', '\\', '[', ']', ',', ':', '\r', '\n', '\u0000', 'null', '{"jsonrpc":"2.0"'),
  fc
    .record({
      id: fc.oneof(fc.integer(), fc.string(), fc.constant(null)),
      method: fc.string(),
      params: fc.anything(),
    })
    .map((m) => JSON.stringify({ jsonrpc: '2.0', ...m })),
);

describe('serveStreams under arbitrary input', () => {
  it('answers are always well-formed JSON-RPC and a ping after the garbage is answered', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.oneof(
            fc.uint8Array({ maxLength: 64 }),
            jsonish.map((t) => Buffer.from(t)),
          ),
          { maxLength: 20 },
        ),
        async (chunks) => {
          const lines = await run(chunks);
          for (const line of lines) {
            expect(line.jsonrpc).toBe('2.0');
            expect('result' in line || 'error' in line || 'method' in line).toBe(true);
          }
          const oversized = lines.some((l) =>
            String((l.error as { message?: string } | undefined)?.message).includes('exceeds'),
          );
          if (!oversized) expect(lines.some((l) => l.id === 'final-ping' && 'result' in l)).toBe(true);
        },
      ),
      { numRuns: 60 },
    );
  });
});

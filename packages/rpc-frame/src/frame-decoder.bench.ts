/** Benchmark: FrameDecoder + encodeFrame against a bare split('\n') + JSON.parse loop, same stream. */
import { performance } from 'node:perf_hooks';
import { afterAll, bench, describe } from 'vitest';
import { encodeFrame } from './encode-frame.js';
import { FrameDecoder } from './frame-decoder.js';
import type { JsonObject, JsonRpcRequest } from './messages.js';
import { successResponse } from './messages.js';

const REQUESTS = 20_000;
const CHUNK_BYTES = 64 * 1024;

/** A tools/call stream as an MCP client sends it: varied tools, arguments and sizes, some non-ASCII. */
function toolsCallStream(): Buffer {
  const tools = ['read_file', 'search', 'run_query', 'spawn_agent', 'fetch_url'];
  const lines: string[] = [];
  for (let i = 0; i < REQUESTS; i++) {
    const args: JsonObject = { path: `/srv/data/project-${i % 97}/src/module-${i}.ts`, limit: (i % 50) + 1 };
    if (i % 3 === 0) args.query = `find usages of handler_${i} — naïve “quoted” text ${'x'.repeat(i % 200)}`;
    if (i % 5 === 0)
      args.options = { recursive: true, include: ['*.ts', '*.md'], depth: i % 7, tags: [i, i + 1] };
    const request: JsonRpcRequest = {
      jsonrpc: '2.0',
      id: i,
      method: 'tools/call',
      params: { name: tools[i % tools.length]!, arguments: args, _meta: { progressToken: `p-${i}` } },
    };
    lines.push(JSON.stringify(request));
  }
  return Buffer.from(`${lines.join('\n')}\n`);
}

/** Splits the stream the way a socket delivers it: fixed-size chunks, cutting lines anywhere. */
function chunked(stream: Buffer, size: number): Buffer[] {
  const chunks: Buffer[] = [];
  for (let at = 0; at < stream.length; at += size) chunks.push(stream.subarray(at, at + size));
  return chunks;
}

/** One line per chunk, as an interactive client writes them. */
function perLine(stream: Buffer): Buffer[] {
  const chunks: Buffer[] = [];
  let from = 0;
  for (let nl = stream.indexOf(0x0a); nl !== -1; nl = stream.indexOf(0x0a, from)) {
    chunks.push(stream.subarray(from, nl + 1));
    from = nl + 1;
  }
  return chunks;
}

function resultFor(id: number): JsonObject {
  return { content: [{ type: 'text', text: `ok ${id}` }], isError: false };
}

const stream = toolsCallStream();
const socketChunks = chunked(stream, CHUNK_BYTES);
const lineChunks = perLine(stream);
const options = { time: 1500, warmupTime: 300 };
const PAIRS = 15;
let sink = 0;

/** The real path: FrameDecoder classifies each line, encodeFrame writes the answer. */
function decoderRound(chunks: readonly Buffer[]): number {
  const decoder = new FrameDecoder();
  let bytes = 0;
  for (const chunk of chunks) {
    for (const frame of decoder.push(chunk)) {
      if (frame.kind !== 'request') continue;
      bytes += encodeFrame(successResponse(frame.message.id, resultFor(frame.message.id as number))).length;
    }
  }
  return bytes;
}

/** The reference: string carry, split('\n'), JSON.parse, JSON.stringify; no checks at all. */
function bareRound(chunks: readonly Buffer[]): number {
  let carry = '';
  let bytes = 0;
  for (const chunk of chunks) {
    const lines = (carry + chunk.toString('utf8')).split('\n');
    carry = lines.pop() ?? '';
    for (const line of lines) {
      if (line === '') continue;
      const message = JSON.parse(line) as { id: number };
      bytes += `${JSON.stringify({ jsonrpc: '2.0', id: message.id, result: resultFor(message.id) })}\n`
        .length;
    }
  }
  return bytes;
}

describe(`decode + encode ${REQUESTS} tools/call requests (${stream.length} bytes) in 64 KiB chunks`, () => {
  bench(
    'bare split + JSON.parse loop (reference)',
    () => {
      sink += bareRound(socketChunks);
    },
    options,
  );
  bench(
    'FrameDecoder + encodeFrame',
    () => {
      sink += decoderRound(socketChunks);
    },
    options,
  );
});

describe(`decode + encode ${REQUESTS} tools/call requests, one line per chunk`, () => {
  bench(
    'bare split + JSON.parse loop (reference)',
    () => {
      sink += bareRound(lineChunks);
    },
    options,
  );
  bench(
    'FrameDecoder + encodeFrame',
    () => {
      sink += decoderRound(lineChunks);
    },
    options,
  );
});

/**
 * The ratio asked for, measured robustly on a busy machine: the two loops alternate, and the
 * ratio of their best times is reported (noise only ever adds time), with the median of the
 * per-pair ratios beside it.
 */
function costRatio(chunks: readonly Buffer[]): { best: number; median: number } {
  const ratios: number[] = [];
  let bestDecoder = Number.POSITIVE_INFINITY;
  let bestBare = Number.POSITIVE_INFINITY;
  for (let i = 0; i < PAIRS; i++) {
    const decoderFirst = i % 2 === 0;
    const first = time(() => (decoderFirst ? decoderRound(chunks) : bareRound(chunks)));
    const second = time(() => (decoderFirst ? bareRound(chunks) : decoderRound(chunks)));
    const [decoder, bare] = decoderFirst ? [first, second] : [second, first];
    bestDecoder = Math.min(bestDecoder, decoder);
    bestBare = Math.min(bestBare, bare);
    ratios.push(decoder / bare);
  }
  ratios.sort((a, b) => a - b);
  return { best: bestDecoder / bestBare, median: ratios[Math.floor(ratios.length / 2)]! };
}

function time(run: () => number): number {
  const start = performance.now();
  sink += run();
  return performance.now() - start;
}

afterAll(() => {
  for (const [name, chunks] of [
    ['64 KiB chunks', socketChunks],
    ['one line per chunk', lineChunks],
  ] as const) {
    const { best, median } = costRatio(chunks);
    const verdict = best <= 1.25 ? 'within' : 'OVER';
    console.log(
      `rpc-frame cost ratio (${name}): FrameDecoder + encodeFrame = ${best.toFixed(2)}x the bare loop ` +
        `(best of ${PAIRS} interleaved runs each; median pair ${median.toFixed(2)}x; target <= 1.25x: ${verdict})`,
    );
  }
  if (sink === 0) console.log('no output');
});

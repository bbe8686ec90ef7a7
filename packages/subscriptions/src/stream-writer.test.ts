/** Bounded writers over real streams: NDJSON framing, overflow, stalls, stream failure. */
import { PassThrough, Writable } from 'node:stream';
import { notification, successResponse } from '@agentd/rpc-frame';
import { describe, expect, it } from 'vitest';
import { ndjsonWriter } from './ndjson-writer.js';

/** A real Writable whose sink never finishes a write: a peer that stopped reading. */
function stalledSink(): Writable {
  return new Writable({ highWaterMark: 16, write: () => {} });
}

function collect(stream: PassThrough): () => string {
  let text = '';
  stream.on('data', (chunk: Buffer) => {
    text += chunk.toString('utf8');
  });
  return () => text;
}

describe('ndjsonWriter', () => {
  it('writes one compact line per message', async () => {
    const stream = new PassThrough();
    const read = collect(stream);
    const writer = ndjsonWriter(stream, { id: 'w1' });
    expect(writer.id).toBe('w1');
    expect(writer.write(notification('a', { text: 'line\nbreak' }))).toBe(true);
    expect(writer.write(notification('b'))).toBe(true);
    await new Promise((resolve) => setImmediate(resolve));
    expect(read()).toBe(
      '{"jsonrpc":"2.0","method":"a","params":{"text":"line\\nbreak"}}\n{"jsonrpc":"2.0","method":"b"}\n',
    );
  });

  it('closes itself (abruptly) when buffered bytes would pass the bound', () => {
    const sink = stalledSink();
    const closes: Array<[string | undefined, boolean]> = [];
    const writer = ndjsonWriter(sink, {
      maxBufferedBytes: 200,
      onClose: (reason, abrupt) => closes.push([reason, abrupt]),
    });
    // A first message larger than the bound is still accepted into an empty buffer.
    expect(writer.write(notification('big', { pad: 'x'.repeat(500) }))).toBe(true);
    expect(writer.write(notification('more'))).toBe(false);
    expect(writer.closed).toBe(true);
    expect(writer.write(notification('after'))).toBe(false);
    expect(closes).toEqual([[expect.stringContaining('more than 200 bytes'), true]]);
  });

  it('hands the messages of one tick to the stream as one write, and flush() or close() delivers them at once', async () => {
    const writes: string[] = [];
    const sink = new Writable({
      write: (chunk: Buffer, _encoding, done) => {
        writes.push(chunk.toString('utf8'));
        done();
      },
    });
    const writer = ndjsonWriter(sink);
    for (let i = 0; i < 3; i += 1) writer.write(successResponse(i, { n: i }));
    expect(writes).toEqual([]);
    expect(writer.bufferedBytes).toBeGreaterThan(0);
    await new Promise((resolve) => setImmediate(resolve));
    expect(writes).toHaveLength(1);
    expect(
      writes[0]
        ?.split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line).id),
    ).toEqual([0, 1, 2]);
    writer.write(notification('now'));
    writer.flush();
    expect(writes).toHaveLength(2);
    writer.write(notification('last'));
    writer.close();
    await new Promise((resolve) => sink.once('finish', resolve));
    expect(writes.at(-1)).toContain('"last"');
    expect(writer.bufferedBytes).toBe(0);
  });

  it('never drops for queued responses (the reader bounds them); reports congestion above the high-water mark', async () => {
    let release: () => void = () => {};
    // A sink that takes one write at a time and finishes it only when told: a slow, healthy reader.
    const sink = new Writable({
      highWaterMark: 16,
      write: (_chunk, _encoding, done) => {
        release = done;
      },
    });
    const pressure: boolean[] = [];
    const writer = ndjsonWriter(sink, {
      maxBufferedBytes: 200,
      highWaterBytes: 1000,
      onPressure: (congested) => pressure.push(congested),
    });
    for (let i = 0; i < 5; i += 1)
      expect(writer.write(successResponse(i, { pad: 'x'.repeat(400) }))).toBe(true);
    expect(writer.closed).toBe(false);
    expect(writer.congested).toBe(true);
    expect(pressure).toEqual([true]);
    // A push on top of queued responses is within its own bound (only pushes are counted).
    expect(writer.write(notification('small'))).toBe(true);
    while (writer.bufferedBytes > 0) {
      release();
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(pressure).toEqual([true, false]);
    expect(writer.congested).toBe(false);
  });

  it('destroys the stream on overflow when no onClose is given, and ends it on close()', async () => {
    const sink = stalledSink();
    const writer = ndjsonWriter(sink, { maxBufferedBytes: 10 });
    writer.write(notification('one'));
    writer.write(notification('two'));
    expect(sink.destroyed).toBe(true);
    const stream = new PassThrough();
    collect(stream);
    const graceful = ndjsonWriter(stream);
    const finished = new Promise((resolve) => stream.on('finish', resolve));
    graceful.close('done');
    await finished;
    expect(graceful.closed).toBe(true);
  });

  it('closes a writer whose queued bytes make no progress within the write timeout', async () => {
    const sink = stalledSink();
    const closed = new Promise<[string | undefined, boolean]>((resolve) => {
      const writer = ndjsonWriter(sink, {
        writeTimeoutMs: 40,
        onClose: (reason, abrupt) => resolve([reason, abrupt]),
      });
      writer.write(notification('stuck'));
    });
    expect(await closed).toEqual([expect.stringContaining('write timed out'), true]);
  });

  it('reports closed once the stream closes or errors', async () => {
    const stream = new PassThrough();
    const writer = ndjsonWriter(stream);
    stream.destroy(new Error('peer gone'));
    await new Promise((resolve) => setImmediate(resolve));
    expect(writer.closed).toBe(true);
    expect(writer.write(notification('x'))).toBe(false);
  });
});

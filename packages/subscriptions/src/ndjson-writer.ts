/** The NDJSON framing of a PushWriter: one JSON line per message (sockets, stdio). */
import type { Writable } from 'node:stream';
import { encodeFrame } from '@agentd/rpc-frame';
import { StreamPushWriter, type StreamWriterOptions } from './stream-writer.js';

export function ndjsonWriter(stream: Writable, options?: StreamWriterOptions): StreamPushWriter {
  return new StreamPushWriter(stream, encodeFrame, options);
}

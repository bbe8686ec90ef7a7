/** The SSE framing of a PushWriter: one `message` event per message (HTTP response streams). */
import type { Writable } from 'node:stream';
import { encodeSseComment, encodeSseMessage } from '@agentd/rpc-frame';
import { StreamPushWriter, type StreamWriterOptions } from './stream-writer.js';

export interface SseWriterOptions extends StreamWriterOptions {
  /** Sends an SSE comment (`:`) this often while the stream is open, so proxies keep it. 0 = never (default). */
  keepAliveMs?: number;
}

export function sseWriter(res: Writable, options: SseWriterOptions = {}): StreamPushWriter {
  const writer = new StreamPushWriter(res, (message) => encodeSseMessage(message), options);
  const keepAliveMs = options.keepAliveMs ?? 0;
  if (keepAliveMs > 0) {
    const timer = setInterval(() => {
      if (writer.closed) clearInterval(timer);
      else writer.writeRaw(encodeSseComment());
    }, keepAliveMs);
    timer.unref();
    res.once('close', () => clearInterval(timer));
  }
  return writer;
}

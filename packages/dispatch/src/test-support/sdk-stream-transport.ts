/**
 * The official v2 client's Transport over a byte stream pair (a connected unix socket, or pipes
 * into a stdio server), framed with the SDK's own NDJSON `ReadBuffer` / `serializeMessage`, as its
 * stdio one is. The SDK ships none for sockets or in-process pipes.
 */
import type { Readable, Writable } from 'node:stream';
import {
  type JSONRPCMessage,
  ReadBuffer,
  serializeMessage,
  type Transport,
} from '@modelcontextprotocol/client';

export function sdkStreamTransport(
  input: Readable,
  output: Writable = input as unknown as Writable,
): Transport {
  const buffer = new ReadBuffer();
  const transport: Transport = {
    start: async () => {
      input.on('data', (chunk: Buffer) => {
        buffer.append(chunk);
        for (;;) {
          let message: JSONRPCMessage | null;
          try {
            message = buffer.readMessage();
          } catch (error) {
            transport.onerror?.(error as Error);
            continue;
          }
          if (message === null) break;
          transport.onmessage?.(message);
        }
      });
      input.on('error', (error) => transport.onerror?.(error));
      input.on('close', () => transport.onclose?.());
    },
    send: (message) =>
      new Promise((resolve, reject) => {
        output.write(serializeMessage(message), (error) => (error ? reject(error) : resolve()));
      }),
    close: async () => {
      input.destroy();
      output.destroy();
    },
  };
  return transport;
}

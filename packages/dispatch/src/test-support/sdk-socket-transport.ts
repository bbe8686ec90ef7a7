/**
 * The official v2 client's Transport over a connected unix socket (the SDK ships none for
 * sockets), framed with the SDK's own NDJSON `ReadBuffer` / `serializeMessage`, as its stdio one is.
 */
import type net from 'node:net';
import {
  type JSONRPCMessage,
  ReadBuffer,
  serializeMessage,
  type Transport,
} from '@modelcontextprotocol/client';

export function sdkSocketTransport(socket: net.Socket): Transport {
  const buffer = new ReadBuffer();
  const transport: Transport = {
    start: async () => {
      socket.on('data', (chunk: Buffer) => {
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
      socket.on('error', (error) => transport.onerror?.(error));
      socket.on('close', () => transport.onclose?.());
    },
    send: (message) =>
      new Promise((resolve, reject) => {
        socket.write(serializeMessage(message), (error) => (error ? reject(error) : resolve()));
      }),
    close: async () => {
      socket.destroy();
    },
  };
  return transport;
}

/**
 * An official SDK client Transport over a connected socket (the SDKs ship none for unix sockets),
 * built from each SDK's own NDJSON framing (`ReadBuffer`, `serializeMessage`), like their stdio one.
 * One function for SDK v1 and v2: pass the SDK's own framing, e.g.
 * `socketTransport(socket, { ReadBuffer, serializeMessage })` from `@modelcontextprotocol/client`.
 */
import type net from 'node:net';

interface Framing<M> {
  ReadBuffer: new () => { append(chunk: Buffer): void; readMessage(): M | null };
  serializeMessage(message: M): string;
}

interface SocketTransport<M> {
  onclose?: (() => void) | undefined;
  onerror?: ((error: Error) => void) | undefined;
  onmessage?: ((message: M) => void) | undefined;
  start(): Promise<void>;
  send(message: M): Promise<void>;
  close(): Promise<void>;
}

export function socketTransport<M>(socket: net.Socket, framing: Framing<M>): SocketTransport<M> {
  const buffer = new framing.ReadBuffer();
  const transport: SocketTransport<M> = {
    start: async () => {
      socket.on('data', (chunk: Buffer) => {
        buffer.append(chunk);
        for (;;) {
          let message: M | null;
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
        socket.write(framing.serializeMessage(message), (error) => (error ? reject(error) : resolve()));
      }),
    close: async () => {
      socket.destroy();
    },
  };
  return transport;
}

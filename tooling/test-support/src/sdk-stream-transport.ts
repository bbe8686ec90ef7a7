/**
 * An official SDK client Transport over a byte stream pair: a connected socket (the SDKs ship none
 * for unix sockets), or pipes into an in-process stdio server. Built from each SDK's own NDJSON
 * framing (`ReadBuffer`, `serializeMessage`), like their stdio one. One function for SDK v1 and v2:
 * pass the SDK's own framing, e.g. `streamTransport(socket, { ReadBuffer, serializeMessage })` from
 * `@modelcontextprotocol/client`.
 */
import type { Readable, Writable } from 'node:stream';

interface Framing<M> {
  ReadBuffer: new () => { append(chunk: Buffer): void; readMessage(): M | null };
  serializeMessage(message: M): string;
}

interface StreamTransport<M> {
  onclose?: (() => void) | undefined;
  onerror?: ((error: Error) => void) | undefined;
  onmessage?: ((message: M) => void) | undefined;
  start(): Promise<void>;
  send(message: M): Promise<void>;
  close(): Promise<void>;
}

/** Reads from `input` and writes to `output`, which is `input` itself for a socket. */
export function streamTransport<M>(
  input: Readable,
  framing: Framing<M>,
  output: Writable = input as unknown as Writable,
): StreamTransport<M> {
  const buffer = new framing.ReadBuffer();
  const transport: StreamTransport<M> = {
    start: async () => {
      input.on('data', (chunk: Buffer) => {
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
      input.on('error', (error) => transport.onerror?.(error));
      input.on('close', () => transport.onclose?.());
    },
    send: (message) =>
      new Promise((resolve, reject) => {
        output.write(framing.serializeMessage(message), (error) => (error ? reject(error) : resolve()));
      }),
    close: async () => {
      input.destroy();
      if (output !== (input as unknown)) output.destroy();
    },
  };
  return transport;
}

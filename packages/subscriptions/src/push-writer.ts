/** A destination for pushed messages: an NDJSON connection, an SSE stream, a listen stream. */
import type { JsonRpcMessage } from '@agentd/rpc-frame';

export interface PushWriter {
  /** Identity used for distinct-writer broadcasts (one write per writer). */
  readonly id: string;
  readonly closed: boolean;
  /**
   * Queues one message without blocking. Returns false when the writer is closed, or when the
   * message would take its buffered bytes past its bound (the writer then closes itself).
   */
  write(message: JsonRpcMessage): boolean;
  close(reason?: string): void;
  /**
   * Optional filter: false means this writer does not take this kind of message (a listen stream
   * that did not ask for it). Registries skip such writers without counting them as written.
   */
  accepts?(message: JsonRpcMessage): boolean;
}

/** A PushWriter that keeps what it was given, for asserting deliveries. */
import type { JsonRpcMessage } from '@agentd/rpc-frame';
import type { PushWriter } from '@agentd/subscriptions';

export interface CaptureWriter extends PushWriter {
  readonly messages: JsonRpcMessage[];
}

export function captureWriter(id: string): CaptureWriter {
  const messages: JsonRpcMessage[] = [];
  let closed = false;
  return {
    id,
    messages,
    get closed() {
      return closed;
    },
    write(message) {
      if (closed) return false;
      messages.push(message);
      return true;
    },
    close() {
      closed = true;
    },
  };
}

/** Polls `predicate` every 5 ms until true; rejects with `what` after `timeoutMs`. */
export async function until(predicate: () => boolean, what: string, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

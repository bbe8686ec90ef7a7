/** A PushWriter that keeps what it was given, for asserting deliveries. */
import type { JsonRpcMessage } from '@agentd/rpc-frame';
import type { PushWriter } from '@agentd/subscriptions';
import { vi } from 'vitest';

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

/** Waits until `predicate` holds; rejects naming `what` after `timeoutMs`. */
export function until(predicate: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  return vi.waitFor(
    () => {
      if (!predicate()) throw new Error(`timed out waiting for ${what}`);
    },
    { timeout: timeoutMs, interval: 5 },
  );
}

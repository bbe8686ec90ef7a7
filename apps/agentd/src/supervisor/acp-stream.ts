/**
 * The ACP connection's transport over the agent's stdio: NDJSON frames, checked before the SDK
 * sees them. A frame that is not JSON-RPC, is larger than the limit, or answers a request never
 * sent is a protocol violation (the run fails) instead of a line the SDK would log and drop.
 */
import type { Readable, Writable } from 'node:stream';
import type { AnyMessage, JsonRpcId, Stream } from '@agentclientprotocol/sdk/unstable';

function describe(line: string): string {
  const shown = line.length > 80 ? `${line.slice(0, 80)}…` : line;
  return JSON.stringify(shown);
}

function isId(value: unknown): value is JsonRpcId {
  return typeof value === 'string' || typeof value === 'number';
}

/** Why a parsed frame is not an acceptable JSON-RPC message, or undefined when it is. */
function frameError(frame: unknown, outstanding: Set<JsonRpcId>): string | undefined {
  if (typeof frame !== 'object' || frame === null || Array.isArray(frame))
    return 'a frame that is not a JSON-RPC object';
  const message = frame as Record<string, unknown>;
  if (message.jsonrpc !== '2.0') return 'a frame without "jsonrpc": "2.0"';
  if ('method' in message) {
    if (typeof message.method !== 'string') return 'a frame whose method is not a string';
    if ('id' in message && !isId(message.id)) return 'a request with an invalid id';
    return undefined;
  }
  if (!('result' in message) && !('error' in message))
    return 'a frame that is neither a request nor a response';
  if (!isId(message.id) || !outstanding.has(message.id))
    return `a response to a request never sent (id ${JSON.stringify(message.id)})`;
  outstanding.delete(message.id);
  return undefined;
}

/**
 * The SDK's `Stream` over a child's stdio. `onViolation` is called once, with a reason, when the
 * agent breaks the framing; reading stops there.
 */
export function agentStream(
  stdout: Readable,
  stdin: Writable,
  maxFrameBytes: number,
  onViolation: (reason: string) => void,
): Stream {
  /** Ids of our requests not answered yet: a response to any other id is out of order. */
  const outstanding = new Set<JsonRpcId>();
  let stopped = false;
  let detach = (): void => {};
  const readable = new ReadableStream<AnyMessage>({
    // The SDK closing the connection cancels the stream: stop listening to the child.
    cancel() {
      detach();
    },
    start(controller) {
      let partial = '';
      const decoder = new TextDecoder();
      const stop = (reason?: string): void => {
        if (stopped) return;
        stopped = true;
        stdout.off('data', onData);
        stdout.off('end', onEnd);
        stdout.off('close', onEnd);
        if (reason !== undefined) onViolation(reason);
        try {
          controller.close();
        } catch {
          // Already closed by a cancel.
        }
      };
      detach = () => stop();
      const onLine = (line: string): void => {
        if (line.trim() === '') return;
        let frame: unknown;
        try {
          frame = JSON.parse(line);
        } catch {
          stop(`the agent wrote a line that is not JSON: ${describe(line)}`);
          return;
        }
        const error = frameError(frame, outstanding);
        if (error === undefined) controller.enqueue(frame as AnyMessage);
        else stop(`the agent sent ${error}`);
      };
      const onData = (chunk: Buffer): void => {
        partial += decoder.decode(chunk, { stream: true });
        let newline = partial.indexOf('\n');
        while (newline !== -1 && !stopped) {
          const line = partial.slice(0, newline);
          partial = partial.slice(newline + 1);
          onLine(line);
          newline = partial.indexOf('\n');
        }
        if (!stopped && Buffer.byteLength(partial) > maxFrameBytes)
          stop(`the agent sent a frame larger than ${maxFrameBytes} bytes`);
      };
      const onEnd = (): void => {
        if (!stopped && partial.trim() !== '') onLine(partial);
        stop();
      };
      stdout.on('data', onData);
      stdout.once('end', onEnd);
      stdout.once('close', onEnd);
    },
  });
  const writable = new WritableStream<AnyMessage>({
    write(message) {
      if ('method' in message && 'id' in message && isId(message.id)) outstanding.add(message.id);
      if (stdin.writableEnded || stdin.destroyed) return;
      // Errors (EPIPE when the agent is gone) are the exit's business: ChildHost swallows them.
      stdin.write(`${JSON.stringify(message)}\n`);
    },
  });
  return { readable, writable };
}

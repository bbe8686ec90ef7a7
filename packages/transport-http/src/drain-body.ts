/** After an early answer (413), reads and discards the rest of the body so the client sees the answer. */
import type { IncomingMessage, ServerResponse } from 'node:http';

export interface DrainLimits {
  /** Most body bytes discarded before the connection is cut. */
  readonly maxBytes: number;
  /** Longest time spent discarding before the connection is cut. */
  readonly maxMs: number;
}

/**
 * Closing a socket with unread request bytes makes the kernel send a reset, which destroys the
 * answer before the client reads it. So the body is discarded up to the limits and the connection
 * closed cleanly after; a body declared larger than `maxBytes` is cut as soon as the answer is out.
 */
export function drainBody(req: IncomingMessage, res: ServerResponse, limits: DrainLimits): void {
  const socket = req.socket;
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limits.maxBytes) {
    res.once('finish', () => socket.destroy());
    return;
  }
  if (req.complete) {
    res.once('finish', () => socket.end());
    return;
  }
  let seen = 0;
  const cut = () => {
    cleanup();
    socket.destroy();
  };
  const timer = setTimeout(cut, limits.maxMs);
  timer.unref();
  const onData = (chunk: Buffer) => {
    seen += chunk.length;
    if (seen > limits.maxBytes) cut();
  };
  const onEnd = () => {
    cleanup();
    // Everything was read: a plain FIN after the answer, no reset.
    if (res.writableFinished) socket.end();
    else res.once('finish', () => socket.end());
  };
  const cleanup = () => {
    clearTimeout(timer);
    req.off('data', onData);
    req.off('end', onEnd);
    req.off('error', cleanup);
  };
  req.on('data', onData);
  req.on('end', onEnd);
  req.on('error', cleanup);
  req.resume();
}

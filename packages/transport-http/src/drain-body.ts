/** After an early 413, discards the rest of the body before the response ends, so the client reads the answer. */
import type { IncomingMessage, ServerResponse } from 'node:http';

export interface DrainLimits {
  /** Most body bytes discarded before the connection is cut. */
  readonly maxBytes: number;
  /** Longest time spent discarding before the connection is cut. */
  readonly maxMs: number;
}

/**
 * Closing a socket with unread request bytes makes the kernel send a reset, which destroys the
 * answer before the client reads it; Node closes the socket as soon as a response ends when the
 * client sent `Connection: close` (or the answer says so). So the answer's bytes are written but
 * the response is ended only once the body has been read to its end; a body declared larger than
 * `maxBytes`, or one still arriving after `maxMs`, is cut after the answer.
 */
export function endAfterDrain(req: IncomingMessage, res: ServerResponse, limits: DrainLimits): void {
  const cut = () => res.end(() => req.socket.destroy());
  const declared = Number(req.headers['content-length']);
  if (req.complete) {
    res.end();
    return;
  }
  if (Number.isFinite(declared) && declared > limits.maxBytes) {
    cut();
    return;
  }
  const cutAfterAnswer = () => {
    cleanup();
    cut();
  };
  let seen = 0;
  const timer = setTimeout(cutAfterAnswer, limits.maxMs);
  timer.unref();
  const onData = (chunk: Buffer) => {
    seen += chunk.length;
    if (seen > limits.maxBytes) cutAfterAnswer();
  };
  const onEnd = () => {
    cleanup();
    // Everything was read: the socket can close with a plain FIN, no reset.
    res.end();
  };
  const onGone = () => {
    cleanup();
    res.end();
  };
  function cleanup() {
    clearTimeout(timer);
    req.off('data', onData);
    req.off('end', onEnd);
    req.off('error', onGone);
    req.off('close', onGone);
  }
  req.on('data', onData);
  req.on('end', onEnd);
  req.on('error', onGone);
  req.on('close', onGone);
  req.resume();
}

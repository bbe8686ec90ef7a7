/** Reads a request body into one Buffer, refusing more than the configured limit. */
import type { IncomingMessage } from 'node:http';

export class BodyTooLarge extends Error {
  override name = 'BodyTooLarge';
}

/**
 * Rejects with BodyTooLarge as soon as the declared or received size passes `limit`; the caller
 * answers 413 and closes the connection. Slow senders are cut by the server's requestTimeout.
 */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = req.headers['content-length'];
  if (declared !== undefined && Number(declared) > limit) {
    return Promise.reject(new BodyTooLarge(`body of ${declared} bytes exceeds ${limit}`));
  }
  return new Promise((resolve, reject) => {
    let first: Buffer | undefined;
    let chunks: Buffer[] | undefined;
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        cleanup();
        req.resume();
        reject(new BodyTooLarge(`body exceeds ${limit} bytes`));
        return;
      }
      if (first === undefined) {
        first = chunk;
        return;
      }
      if (chunks === undefined) chunks = [first];
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve(chunks !== undefined ? Buffer.concat(chunks, size) : (first ?? Buffer.alloc(0)));
    };
    const onError = (error: Error) => {
      cleanup();
      reject(error);
    };
    const cleanup = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
  });
}

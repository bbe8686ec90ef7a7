/** Loopback ports: a free one to bind, and waiting until something answers on one. */
import { createConnection, createServer } from 'node:net';

/** A port the kernel just handed out on 127.0.0.1 (free at return; bind it soon). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Resolves once a TCP connect to 127.0.0.1:port succeeds; rejects after `timeoutMs` or when `alive()` turns false. */
export async function waitForPort(
  port: number,
  options: { timeoutMs?: number; alive?: () => boolean; what?: string } = {},
): Promise<void> {
  const deadline = Date.now() + (options.timeoutMs ?? 10_000);
  for (;;) {
    if (options.alive !== undefined && !options.alive()) {
      throw new Error(`${options.what ?? 'process'} exited before listening on ${port}`);
    }
    const connected = await new Promise<boolean>((resolve) => {
      const socket = createConnection({ host: '127.0.0.1', port });
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (connected) return;
    if (Date.now() > deadline) throw new Error(`${options.what ?? 'nothing'} listening on ${port} in time`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

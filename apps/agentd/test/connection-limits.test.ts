/** End to end: the config file's `connections` limits and Code Mode fairness keys reach the running daemon. */
import { createConnection } from 'node:net';
import { type Json, NdjsonClient } from '@agentd/test-support';
import { describe, expect, it } from 'vitest';
import { startAgentd } from './support/agentd-process.js';

describe('connection limits and Code Mode fairness from the config file', () => {
  it('refuses a connection past the input budget with a clear error; execute runs under the fairness keys', async () => {
    const agentd = await startAgentd({
      config: {
        connections: { maxBufferedInputBytes: 65_536, highWaterBytes: 262_144 },
        codeMode: { maxRunningPerPrincipal: 2, maxQueueWaitMs: 5_000, priorityWorkers: 1 },
      },
    });
    const c = await NdjsonClient.connect(agentd.socket);
    const socket = createConnection(agentd.socket);
    await new Promise((resolve) => socket.once('connect', resolve));
    const hog = new NdjsonClient(socket, socket);
    try {
      socket.write(`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"${'x'.repeat(100_000)}`);
      const refused = await hog.waitFor((m) => m.error !== undefined);
      expect((refused.error as Json).message).toContain("server's budget of 65536 bytes");
      const done = await c.modernResult('tools/call', {
        name: 'execute',
        arguments: { code: 'return 6 * 7;' },
      });
      expect(done.isError).not.toBe(true);
      expect(JSON.stringify(done)).toContain('42');
    } finally {
      socket.destroy();
      c.end();
      await agentd.stop();
    }
  });
});

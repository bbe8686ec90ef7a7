/** End to end: the config file's codeMode block reaches the sandbox of every execute. */

import { type Json, NdjsonClient } from '@agentd/test-support';
import { describe, expect, it } from 'vitest';
import { startAgentd } from './support/agentd-process.js';

describe('codeMode sandbox limits from the config file', () => {
  it('applies maxCalls and maxLogLines to execute', async () => {
    const agentd = await startAgentd({ config: { codeMode: { maxCalls: 2, maxLogLines: 1 } } });
    const c = await NdjsonClient.connect(agentd.socket);
    try {
      const execute = (code: string) =>
        c.modernResult('tools/call', { name: 'execute', arguments: { code } });
      const within = await execute(
        "console.log('a'); console.log('b'); await agentd.status(); await agentd.status(); return 'ok';",
      );
      expect(within.isError).not.toBe(true);
      expect(JSON.stringify(within)).not.toContain('"b"');
      const over = await execute('for (let i = 0; i < 3; i++) await agentd.status(); return "unreachable";');
      expect(over.isError).toBe(true);
      expect(((over.content as Json[])[0] as { text: string }).text).toMatch(/call/i);
    } finally {
      c.end();
      await agentd.stop();
    }
  });
});

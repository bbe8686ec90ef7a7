/** A child process serving MCP on its own stdio from the built package (used by serve-stdio.slow.test.ts). */
import { createServerCore, serveStdio } from '../../dist/index.js';

const handler = {
  capabilities: () => ({ tools: {} }),
  handle: async (request) => {
    if (request.method === 'boom') {
      console.log('console.log from the handler');
      throw new Error('kaboom detail');
    }
    return {};
  },
};

await serveStdio(createServerCore({ handler, serverInfo: { name: 'child', version: '0' } }));

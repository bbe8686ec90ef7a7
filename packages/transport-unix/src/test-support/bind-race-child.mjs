/**
 * One racer of bind-race.slow.test.ts, from the built packages: on each `go PATH` line it binds PATH and
 * serves `whoami` (its pid), printing `won` or `lost CODE`; on `release` it closes what it bound.
 */
import { createInterface } from 'node:readline';
import { createServerCore, silentLogger } from '@agentd/server';
import { bindUnix, serveUnix } from '../../dist/index.js';

const handler = {
  capabilities: () => ({}),
  handle: async () => ({ pid: process.pid }),
};
const core = createServerCore({ handler, serverInfo: { name: 'racer', version: '0' }, logger: silentLogger });
let served;

for await (const line of createInterface({ input: process.stdin })) {
  const [command, path] = line.split(' ');
  if (command === 'go') {
    try {
      served = serveUnix(await bindUnix(path), core);
      process.stdout.write('won\n');
    } catch (error) {
      process.stdout.write(`lost ${error.code}\n`);
    }
  } else if (command === 'who') {
    process.stdout.write(served === undefined ? 'idle\n' : 'won\n');
  } else if (command === 'release') {
    await served?.close(100);
    served = undefined;
    process.stdout.write('released\n');
  }
}

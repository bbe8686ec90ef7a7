#!/usr/bin/env node
/** CLI: `agentd-conformance-server [--port N] [--host H]`; prints `{"url": …}` once listening. */
import { parseArgs } from 'node:util';
import { startEverythingServer } from './everything.js';

const { values } = parseArgs({
  options: { port: { type: 'string', default: '0' }, host: { type: 'string', default: '127.0.0.1' } },
});
const port = Number(values.port);
if (!Number.isInteger(port) || port < 0 || port > 65_535) {
  process.stderr.write(`invalid --port ${values.port}\n`);
  process.exit(2);
}
const server = await startEverythingServer({ port, host: values.host });
process.stdout.write(`${JSON.stringify({ url: server.url })}\n`);

let stopping = false;
const stop = () => {
  if (stopping) return;
  stopping = true;
  server.close().then(
    () => process.exit(0),
    () => process.exit(1),
  );
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);

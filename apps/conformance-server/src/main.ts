#!/usr/bin/env node
/**
 * CLI: `agentd-conformance-server [--port N] [--host H] [--adapter node|fetch|express]`; prints
 * `{"url": …}` once listening.
 */
import { parseArgs } from 'node:util';
import { ADAPTERS, type Adapter, startEverythingServer } from './serve-everything.js';

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '0' },
    host: { type: 'string', default: '127.0.0.1' },
    adapter: { type: 'string', default: 'node' },
  },
});
const adapter = values.adapter as Adapter;
if (!ADAPTERS.includes(adapter)) {
  process.stderr.write(`invalid --adapter ${values.adapter} (one of ${ADAPTERS.join(', ')})\n`);
  process.exit(2);
}
const port = Number(values.port);
if (!Number.isInteger(port) || port < 0 || port > 65_535) {
  process.stderr.write(`invalid --port ${values.port}\n`);
  process.exit(2);
}
const server = await startEverythingServer({ port, host: values.host, adapter });
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

#!/usr/bin/env node
/**
 * The starter: the stateless tool-server contract's example tools on `ContractServer`. NDJSON over stdio by
 * default; `--http <port>` serves HTTP on 127.0.0.1 instead (port 0: any free one) and prints
 * `listening <url>` on stdout once it accepts requests.
 */
import { http, InputRequired, stdio } from '@agentd/dispatch';
import { ContractServer } from '@agentd/dispatch/node';

const server = new ContractServer();

server.registerTool(
  'greet',
  'Greets someone by name',
  { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
  (args) => `Hello, ${args.name}!`,
);

server.registerTool(
  'add',
  'Adds two numbers',
  { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
  (args) => Number(args.a) + Number(args.b),
);

server.registerTool(
  'divide',
  'Divides a by b',
  { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
  (args) => {
    if (args.b === 0) throw new Error('division by zero');
    return Number(args.a) / Number(args.b);
  },
);

server.registerTool(
  'delete_file',
  'Deletes a file after the user confirms',
  { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
  (args, inputResponses) => {
    if (inputResponses?.confirm !== 'yes') {
      throw new InputRequired([{ id: 'confirm', prompt: `Type 'yes' to delete ${args.path}.` }]);
    }
    return `Deleted ${args.path}`;
  },
);

const httpFlag = process.argv.indexOf('--http');
if (httpFlag === -1) {
  // A script may pipe its requests in and close stdin: answers still running are finished first.
  const served = await server.connect(stdio({ halfCloseDrainMs: 10_000 }));
  await served.closed;
} else {
  const served = await server.connect(http({ port: Number(process.argv[httpFlag + 1] ?? 0) }));
  console.log(`listening ${served.url}`);
  process.once('SIGTERM', () => served.close().then(() => process.exit(0)));
}

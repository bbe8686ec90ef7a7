#!/usr/bin/env node
/**
 * The starter: the stateless tool-server contract's example tools on `ContractServer`. NDJSON over stdio by
 * default; `--http <port>` serves HTTP on 127.0.0.1 instead (port 0: any free one) and prints
 * `listening <url>` on stdout once it accepts requests.
 */
import { createServer } from 'node:http';
import { InputRequired } from '@agentd/dispatch';
import { ContractServer, mcpHttpListener, serveMcpStdio } from '@agentd/dispatch/node';

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
  await serveMcpStdio(server);
} else {
  const http = createServer(mcpHttpListener(server));
  http.listen(Number(process.argv[httpFlag + 1] ?? 0), '127.0.0.1', () => {
    const address = http.address();
    const port = typeof address === 'object' && address !== null ? address.port : 0;
    console.log(`listening http://127.0.0.1:${port}/`);
  });
  process.once('SIGTERM', () => http.close(() => process.exit(0)));
}

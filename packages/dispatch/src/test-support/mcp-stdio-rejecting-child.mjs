/**
 * A child serving over its own stdio (one request at a time) an ContractServer whose `handle` rejects
 * for the tool `reject`: a stand-in for a bug below the transport, which must not wedge it.
 */
import { ContractServer, serveMcpStdio } from '../../dist/node.js';

class RejectingServer extends ContractServer {
  handle(text, options) {
    if (text.includes('"name":"reject"')) return Promise.reject(new Error('handle blew up'));
    return super.handle(text, options);
  }
}

const server = new RejectingServer();
server.registerTool('echo', 'Echoes', { properties: { text: { type: 'string' } } }, (args) =>
  String(args.text),
);
await serveMcpStdio(server, { maxInFlight: 1 });
console.error('stdin ended, exiting');

/**
 * @agentd/dispatch/node: the stateless tool-server contract of examples/mcp-server
 * (`ContractServer`, served on any transport through the server core). The main entry stays
 * runtime-neutral. This file is the subpath's public API.
 */
export { ContractServer } from './contract-server.js';

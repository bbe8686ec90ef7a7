/** Until the ContractServer rewrite lands (its contract-server.ts imports this name): rpc-frame's one level check. */
export { isLogLevel as isLoggingLevel } from '@agentd/rpc-frame';

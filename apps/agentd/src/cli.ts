#!/usr/bin/env node
/** Placeholder entry point; replaced by the real daemon. */
import { encodeFrame } from '@agentd/rpc-frame';

process.stdout.write(encodeFrame({ jsonrpc: '2.0', method: 'agentd/starting' }));
process.on('SIGINT', () => process.exit(0));
setInterval(() => {}, 1 << 30);

#!/usr/bin/env node
// A source build of the vsock addon on this machine, for a platform without a prebuilt one (or to
// replace it): writes build/Release/agentd_vsock.node, which the loader (node-gyp-build) prefers
// over prebuilds/. Needs a C compiler ($CC, else cc) and Linux; nothing is downloaded. Run it from
// the installed package: `npm explore @agentd/transport-vsock -- node scripts/build-addon.mjs`.
import { join } from 'node:path';
import { compileAddon, packageRoot } from './compile-addon.mjs';

if (process.platform !== 'linux') {
  console.error(`@agentd/transport-vsock: AF_VSOCK is Linux-only; nothing to build on ${process.platform}`);
  process.exit(1);
}
const out = join(packageRoot, 'build', 'Release', 'agentd_vsock.node');
const failure = await compileAddon({ cc: process.env.CC || 'cc', out });
if (failure !== undefined) {
  console.error(`@agentd/transport-vsock: the source build failed: ${failure}`);
  process.exit(1);
}
console.log(`@agentd/transport-vsock: built ${out}`);

/** Loads the native addon once; when none fits, every use fails with the reason instead. */

import { createRequire } from 'node:module';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { vsockError } from './local-errors.js';

/** Where a socket lives: vsock for real use, unix only for the test stand-in. */
export type NativeAddress = { family: 'vsock'; cid: number; port: number } | { family: 'unix'; path: string };

/** The peer of an accepted connection: `{cid, port}` for vsock, `{}` for the unix stand-in. */
export interface NativePeer {
  cid?: number;
  port?: number;
}

/** One non-blocking socket owned by the addon (see native/vsock.c). */
export interface NativeHandle {
  readonly fd: number;
  accept(): (NativePeer & { handle: NativeHandle }) | undefined;
  /** Data, `null` at end of stream, `undefined` when it would block. */
  read(): Buffer | null | undefined;
  /** Bytes written; 0 when it would block. */
  write(chunk: Buffer): number;
  shutdown(): void;
  takeError(): void;
  address(): NativePeer;
  poll(events: number, callback?: (status: number, events: number) => void): void;
  close(): void;
  ref(): void;
  unref(): void;
}

interface NativeAddon {
  listen(address: NativeAddress, backlog: number): NativeHandle;
  /** The handle, and the connect error when connect(2) failed at once (the handle is then only for closing). */
  connect(address: NativeAddress): [NativeHandle, Error | undefined];
  localCid(): number;
}

export const POLL_READABLE = 1;
export const POLL_WRITABLE = 2;

/** Which addon file loaded: one the package ships (prebuilds/), or one built on this machine (build/). */
export interface VsockAddonInfo {
  file: string;
  kind: 'prebuilt' | 'source';
}

const packageRoot = fileURLToPath(new URL('..', import.meta.url));
const HOW_TO_BUILD =
  'build one from source with a C compiler: npm explore @agentd/transport-vsock -- node scripts/build-addon.mjs';

let loaded: { addon: NativeAddon; info: VsockAddonInfo } | { reason: string } | undefined;

/** node-gyp-build's pick: build/Release (a source build) first, else the matching prebuilds/ file. */
function load(): { addon: NativeAddon; info: VsockAddonInfo } | { reason: string } {
  if (process.platform !== 'linux') {
    return { reason: `AF_VSOCK is only available on Linux (this platform is ${process.platform})` };
  }
  const require = createRequire(import.meta.url);
  const loader = require('node-gyp-build') as { resolve(dir: string): string };
  let file: string;
  try {
    file = loader.resolve(packageRoot);
  } catch (error) {
    const target = firstLine(error).replace(/^No native build was found for /, '');
    return { reason: `no prebuilt addon matches this machine (${target}); ${HOW_TO_BUILD}` };
  }
  try {
    const addon = require(file) as NativeAddon;
    return {
      addon,
      info: { file, kind: relative(packageRoot, file).startsWith('prebuilds') ? 'prebuilt' : 'source' },
    };
  } catch (error) {
    return { reason: `the native addon ${file} does not load (${firstLine(error)}); ${HOW_TO_BUILD}` };
  }
}

function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? '';
}

/** The addon file in use (loading it if need be), or undefined when vsock is unavailable. */
export function vsockAddonInfo(): VsockAddonInfo | undefined {
  loaded ??= load();
  return 'info' in loaded ? loaded.info : undefined;
}

/** Why vsock is unavailable in this process, or undefined when the addon loaded. */
export function vsockUnavailableReason(): string | undefined {
  loaded ??= load();
  return 'reason' in loaded ? loaded.reason : undefined;
}

/** The addon, or a LocalError `vsock_unavailable` naming why it cannot be used. */
export function nativeAddon(): NativeAddon {
  loaded ??= load();
  if ('reason' in loaded) {
    throw vsockError('vsock_unavailable', `@agentd/transport-vsock is unavailable: ${loaded.reason}`);
  }
  return loaded.addon;
}

/** Loads the native addon once; when it is missing, every use fails with the reason instead. */

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
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

const ADDON_PATH = '../build/Release/agentd_vsock.node';
const INSTALL_ERROR_PATH = '../build/install-error.txt';

let loaded: { addon: NativeAddon } | { reason: string } | undefined;

function load(): { addon: NativeAddon } | { reason: string } {
  if (process.platform !== 'linux') {
    return { reason: `AF_VSOCK is only available on Linux (this platform is ${process.platform})` };
  }
  try {
    return { addon: createRequire(import.meta.url)(ADDON_PATH) as NativeAddon };
  } catch (error) {
    const detail = error instanceof Error ? error.message.split('\n')[0] : String(error);
    const recorded = installError();
    if (recorded !== undefined)
      return { reason: `the native addon is not built (${recorded}); reinstall the package` };
    // No record: the install script never ran, as under pnpm until the build is approved.
    return {
      reason: `the native addon is not built (${detail}); its install script did not run: with pnpm, allow it (pnpm approve-builds), then reinstall the package`,
    };
  }
}

/** The reason the install script recorded when it could not build the addon, if any. */
function installError(): string | undefined {
  try {
    return readFileSync(new URL(INSTALL_ERROR_PATH, import.meta.url), 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
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

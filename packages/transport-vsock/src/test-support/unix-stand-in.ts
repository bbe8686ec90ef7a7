/** Tests only: the addon's own socket code on AF_UNIX, where vsock cannot connect to itself. */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectTo } from '../connect-vsock.js';
import type { VsockListener } from '../vsock-listener.js';
import { listenOn } from '../vsock-listener.js';
import type { VsockSocket, VsockSocketOptions } from '../vsock-socket.js';

/** Listens on a unix path through the addon (same accept/poll/stream code as vsock). */
export function bindUnixViaAddon(path: string, backlog?: number): VsockListener {
  return listenOn({ family: 'unix', path }, backlog);
}

/** Dials a unix path through the addon. */
export function connectUnixViaAddon(path: string, options?: VsockSocketOptions): VsockSocket {
  return connectTo({ family: 'unix', path }, options);
}

/** A fresh socket path in a private temp dir, and its cleanup. */
export function tempSocketPath(): { path: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'vsock-test-'));
  return { path: join(dir, 's'), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Open descriptors of this process. */
export function openFdCount(): number {
  return readdirSync('/proc/self/fd').length;
}

/** A listening vsock socket that accepts without blocking and emits each connection as a VsockSocket. */
import { EventEmitter } from 'node:events';
import { VMADDR_CID_ANY } from './constants.js';
import { explainNoVsock } from './explain-no-vsock.js';
import { vsockError } from './local-errors.js';
import {
  type NativeAddress,
  type NativeHandle,
  type NativePeer,
  nativeAddon,
  POLL_READABLE,
} from './native.js';
import { checkU32 } from './parse-vsock-address.js';
import { VsockSocket } from './vsock-socket.js';

/** Connections accepted per readiness callback before yielding to the event loop. */
const MAX_ACCEPTS_PER_WAKEUP = 64;
/** How long accepting pauses when the process is out of fds or memory. */
const EXHAUSTED_PAUSE_MS = 100;
/** accept(2): errors of the pending connection, not of the listener; skip and go on. */
const TRANSIENT = new Set([
  'ECONNABORTED',
  'EPROTO',
  'EPERM',
  'ENETDOWN',
  'ENOPROTOOPT',
  'EHOSTDOWN',
  'ENONET',
  'EHOSTUNREACH',
  'EOPNOTSUPP',
  'ENETUNREACH',
  'ECONNRESET',
]);
/** Resource exhaustion: back off instead of spinning on a level-triggered poll. */
const EXHAUSTED = new Set(['EMFILE', 'ENFILE', 'ENOBUFS', 'ENOMEM']);

export interface BindVsockOptions {
  /** Local CID to bind (default VMADDR_CID_ANY: accept the host). */
  cid?: number;
  /** Port to listen on, 1..2^32-2, or VMADDR_PORT_ANY for any free port. */
  port: number;
  /** listen(2) backlog (default 511, as net.Server). */
  backlog?: number;
  /** Accepted sockets keep their write side open after the peer's EOF (default false, as net). */
  allowHalfOpen?: boolean;
}

/**
 * Events: `connection` (VsockSocket), `acceptError` (Error: the process ran out of fds or memory;
 * accepting pauses briefly and resumes), `error` (the listener itself broke; it is closed),
 * `close`.
 */
export class VsockListener extends EventEmitter {
  /** Given to each accepted VsockSocket; serveVsock sets it (answers may follow the peer's EOF). */
  allowHalfOpen: boolean;
  #handle: NativeHandle | undefined;
  #address: NativePeer;
  #resumeTimer: NodeJS.Timeout | undefined;
  #unref = false;

  /** @internal Use bindVsock(). */
  constructor(handle: NativeHandle, options: { allowHalfOpen?: boolean } = {}) {
    super();
    this.allowHalfOpen = options.allowHalfOpen ?? false;
    this.#handle = handle;
    this.#address = handle.address();
    this.#watch();
  }

  override on(event: 'connection', listener: (socket: VsockSocket) => void): this;
  override on(event: 'acceptError' | 'error', listener: (error: NodeJS.ErrnoException) => void): this;
  override on(event: 'close', listener: () => void): this;
  override on(event: string | symbol, listener: (...args: never[]) => void): this {
    return super.on(event, listener as (...args: unknown[]) => void);
  }

  override once(event: 'connection', listener: (socket: VsockSocket) => void): this;
  override once(event: 'acceptError' | 'error', listener: (error: NodeJS.ErrnoException) => void): this;
  override once(event: 'close', listener: () => void): this;
  override once(event: string | symbol, listener: (...args: never[]) => void): this {
    return super.once(event, listener as (...args: unknown[]) => void);
  }

  get listening(): boolean {
    return this.#handle !== undefined;
  }

  /** The bound `{cid, port}` (the real port when bound with VMADDR_PORT_ANY). */
  address(): NativePeer {
    return { ...this.#address };
  }

  /** Stops accepting and closes the listening socket (open connections are not touched). Idempotent. */
  close(): void {
    const handle = this.#handle;
    if (handle === undefined) return;
    this.#handle = undefined;
    clearTimeout(this.#resumeTimer);
    handle.close();
    process.nextTick(() => this.emit('close'));
  }

  unref(): this {
    this.#unref = true;
    this.#handle?.unref();
    this.#resumeTimer?.unref();
    return this;
  }

  ref(): this {
    this.#unref = false;
    this.#handle?.ref();
    this.#resumeTimer?.ref();
    return this;
  }

  #watch(): void {
    this.#handle?.poll(POLL_READABLE, (status) => this.#onReadable(status));
  }

  #onReadable(status: number): void {
    const handle = this.#handle;
    if (handle === undefined) return;
    if (status < 0) {
      this.#fail(handle);
      return;
    }
    for (let i = 0; i < MAX_ACCEPTS_PER_WAKEUP && this.#handle === handle; i++) {
      let accepted: ReturnType<NativeHandle['accept']>;
      try {
        accepted = handle.accept();
      } catch (error) {
        if (this.#acceptFailed(handle, error as NodeJS.ErrnoException)) continue;
        return;
      }
      if (accepted === undefined) return;
      const { handle: connection, ...peer } = accepted;
      const socket = new VsockSocket(connection, peer, false, { allowHalfOpen: this.allowHalfOpen });
      // Nobody to serve it: close it rather than leak the fd.
      if (this.listenerCount('connection') === 0) socket.destroy();
      else this.emit('connection', socket);
    }
  }

  /** True to keep accepting in this wakeup. */
  #acceptFailed(handle: NativeHandle, error: NodeJS.ErrnoException): boolean {
    if (TRANSIENT.has(error.code ?? '')) return true;
    if (EXHAUSTED.has(error.code ?? '')) {
      handle.poll(0);
      this.#resumeTimer = setTimeout(() => this.#watch(), EXHAUSTED_PAUSE_MS);
      if (this.#unref) this.#resumeTimer.unref();
      this.emit('acceptError', error);
      return false;
    }
    this.close();
    this.emit('error', error);
    return false;
  }

  #fail(handle: NativeHandle): void {
    let error: Error = new Error('accept: listening socket failed');
    try {
      handle.takeError();
    } catch (cause) {
      error = cause as Error;
    }
    this.close();
    this.emit('error', error);
  }
}

/** @internal Binds and listens on any address family the addon supports (tests use unix). */
export function listenOn(address: NativeAddress, backlog = 511, allowHalfOpen = false): VsockListener {
  return new VsockListener(nativeAddon().listen(address, backlog), { allowHalfOpen });
}

/**
 * Binds and listens on AF_VSOCK, synchronously (socket, bind and listen never block). Throws the
 * errno error (`EADDRINUSE`, `EAFNOSUPPORT` when the kernel has no vsock, ...), a LocalError
 * `invalid_vsock_address` for a bad cid/port, `invalid_options` for a bad backlog, or `vsock_unavailable` when the addon cannot load.
 */
export function bindVsock(options: BindVsockOptions): VsockListener {
  const cid = checkU32('cid', options.cid ?? VMADDR_CID_ANY, 0);
  const port = checkU32('port', options.port, 1);
  const backlog = options.backlog ?? 511;
  if (!Number.isInteger(backlog) || backlog < 1) {
    throw vsockError('invalid_options', `backlog must be a positive integer, got ${String(backlog)}`);
  }
  return explainNoVsock(() =>
    listenOn({ family: 'vsock', cid, port }, backlog, options.allowHalfOpen ?? false),
  );
}

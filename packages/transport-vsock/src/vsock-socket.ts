/** A vsock connection as a Node Duplex: backpressure, half-close, errors and destroy() like net.Socket. */
import { Duplex } from 'node:stream';
import { type NativeHandle, type NativePeer, POLL_READABLE, POLL_WRITABLE } from './native.js';

/** libuv reports EPOLLERR as UV_EBADF; the socket's own SO_ERROR says what really happened. */
const UV_EBADF = -9;
/** Reads per readiness callback, so one busy peer cannot starve the event loop. */
const MAX_READS_PER_WAKEUP = 16;

export interface VsockSocketOptions {
  /** Keep the writable side open after the peer's EOF (default false, as net.Socket). */
  allowHalfOpen?: boolean;
}

interface PendingWrite {
  chunk: Buffer;
  callback: (error?: Error | null) => void;
}

function destroyedError(): Error {
  return Object.assign(new Error('Cannot call write after a stream was destroyed'), {
    code: 'ERR_STREAM_DESTROYED',
  });
}

export class VsockSocket extends Duplex {
  /** Peer CID (undefined on the unix test stand-in). */
  readonly remoteCid: number | undefined;
  /** Peer port (undefined on the unix test stand-in). */
  readonly remotePort: number | undefined;
  bytesRead = 0;
  bytesWritten = 0;
  /** True until a dialed socket is connected (accepted sockets are connected from the start). */
  connecting: boolean;

  #handle: NativeHandle;
  #polled = 0;
  #wantRead = false;
  #pending: PendingWrite | undefined;
  /** An end() that arrived while connecting; runs once connected. */
  #pendingFinal: ((error?: Error | null) => void) | undefined;

  /** @internal Made by the listener (accepted) or by connectVsock (connecting). */
  constructor(handle: NativeHandle, peer: NativePeer, connecting: boolean, options: VsockSocketOptions = {}) {
    super({
      allowHalfOpen: options.allowHalfOpen ?? false,
      readableHighWaterMark: 64 * 1024,
      writableHighWaterMark: 64 * 1024,
    });
    this.#handle = handle;
    this.remoteCid = peer.cid;
    this.remotePort = peer.port;
    this.connecting = connecting;
  }

  /** The local end's `{cid, port}` (`{}` on the unix stand-in), or `{}` once closed. */
  address(): NativePeer {
    return this.destroyed ? {} : this.#handle.address();
  }

  /** Let the process exit while this socket is open (like net.Socket#unref). */
  unref(): this {
    this.#handle.unref();
    return this;
  }

  ref(): this {
    this.#handle.ref();
    return this;
  }

  /** @internal Starts watching for the end of a non-blocking connect. */
  startConnecting(): void {
    this.#updatePoll();
  }

  override _read(): void {
    this.#wantRead = true;
    this.#updatePoll();
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    this.#pending = { chunk, callback };
    this.#flush();
  }

  /** Writes queued behind a slow peer go out in one send(). */
  override _writev(
    chunks: Array<{ chunk: Buffer; encoding: BufferEncoding }>,
    callback: (error?: Error | null) => void,
  ): void {
    this.#pending = { chunk: Buffer.concat(chunks.map((entry) => entry.chunk)), callback };
    this.#flush();
  }

  override _final(callback: (error?: Error | null) => void): void {
    if (this.connecting) {
      this.#pendingFinal = callback;
      return;
    }
    try {
      this.#handle.shutdown();
      callback();
    } catch (error) {
      callback(error as Error);
    }
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.#handle.close();
    this.#polled = 0;
    const pending = this.#pending;
    this.#pending = undefined;
    pending?.callback(error ?? destroyedError());
    this.#pendingFinal = undefined;
    callback(error);
  }

  /** Poll for exactly what is wanted now: readable while the consumer wants data, writable while
   * a write is waiting for room (or a connect is in progress). */
  #updatePoll(): void {
    if (this.destroyed) return;
    const events =
      (this.#wantRead ? POLL_READABLE : 0) |
      (this.#pending !== undefined || this.connecting ? POLL_WRITABLE : 0);
    if (events === this.#polled) return;
    try {
      this.#handle.poll(events, (status, ready) => this.#onPoll(status, ready));
      this.#polled = events;
    } catch (error) {
      this.destroy(error as Error);
    }
  }

  #onPoll(status: number, ready: number): void {
    if (this.destroyed) return;
    if (status < 0) {
      this.#polled = 0; // libuv stopped the poll handle
      this.destroy(this.#socketError(status));
      return;
    }
    if (this.connecting) {
      if (ready & POLL_WRITABLE) this.#finishConnect();
      return;
    }
    if (ready & POLL_READABLE) this.#readSome();
    if (ready & POLL_WRITABLE) this.#flush();
  }

  #finishConnect(): void {
    try {
      this.#handle.takeError();
    } catch (error) {
      this.destroy(error as Error);
      return;
    }
    this.connecting = false;
    this.emit('connect');
    this.emit('ready');
    if (this.destroyed) return;
    this.#flush();
    const final = this.#pendingFinal;
    this.#pendingFinal = undefined;
    if (final !== undefined) this._final(final);
    this.#updatePoll();
  }

  #socketError(status: number): Error {
    try {
      this.#handle.takeError();
    } catch (error) {
      return error as Error;
    }
    const name = status === UV_EBADF ? 'EIO' : `errno ${status}`;
    return Object.assign(new Error(`poll ${name}: socket error`), { code: 'EIO', syscall: 'poll' });
  }

  #readSome(): void {
    for (let i = 0; i < MAX_READS_PER_WAKEUP && this.#wantRead && !this.destroyed; i++) {
      let chunk: Buffer | null | undefined;
      try {
        chunk = this.#handle.read();
      } catch (error) {
        this.destroy(error as Error);
        return;
      }
      if (chunk === undefined) break; // drained: keep polling
      if (chunk === null) {
        this.#wantRead = false;
        this.push(null);
        break;
      }
      this.bytesRead += chunk.length;
      if (!this.push(chunk)) this.#wantRead = false; // backpressure: stop until _read()
    }
    this.#updatePoll();
  }

  #flush(): void {
    const pending = this.#pending;
    if (pending === undefined || this.connecting || this.destroyed) return;
    while (pending.chunk.length > 0) {
      let written: number;
      try {
        written = this.#handle.write(pending.chunk);
      } catch (error) {
        this.#pending = undefined;
        this.#updatePoll();
        pending.callback(error as Error);
        return;
      }
      if (written === 0) {
        this.#updatePoll(); // kernel buffer full: wait for POLL_WRITABLE
        return;
      }
      this.bytesWritten += written;
      pending.chunk = pending.chunk.subarray(written);
    }
    this.#pending = undefined;
    this.#updatePoll();
    pending.callback();
  }
}

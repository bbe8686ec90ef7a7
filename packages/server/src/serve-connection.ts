/** The NDJSON connection loop for any byte stream: framing, backpressure, drain and teardown. */
import type { Duplex, Readable, Writable } from 'node:stream';
import { refuse } from '@agentd/lifecycle';
import {
  DEFAULT_MAX_FRAME_BYTES,
  type DecodedFrame,
  errorResponse,
  FrameDecoder,
  type JsonRpcResponse,
} from '@agentd/rpc-frame';
import { ndjsonWriter, type StreamPushWriter } from '@agentd/subscriptions';
import type { CoreConnection, ServerCore } from './core-types.js';
import type { Peer, PeerOrigin } from './handler.js';
import { errorFields } from './logger.js';

const DEFAULT_WRITE_TIMEOUT_MS = 30_000;
const DEFAULT_DRAIN_TIMEOUT_MS = 10_000;

export interface ServeConnectionOptions {
  /** Informational transport name carried on the Peer ('unix', 'vsock', …). Default 'stream'. */
  transport?: string;
  attributes?: Record<string, unknown>;
  /** Default: one the core mints (`core.mintConnectionId(transport)`). */
  connectionId?: string;
  /** Longest accepted line; a longer one is answered -32600 and closes the connection. Default 16 MiB. */
  maxFrameBytes?: number;
  /**
   * Queued output that makes no write progress this long drops the peer; a peer the server has
   * ended that neither reads nor closes is cut off after it too. Default 30 000 ms.
   */
  writeTimeoutMs?: number;
  /**
   * Queued output above which the connection stops reading and dispatching requests until the
   * peer has read half of it (backpressure, not a drop). Default 1 MiB.
   */
  highWaterBytes?: number;
  /**
   * Unflushed notifications (pushes the peer did not ask for one by one) a peer may accumulate
   * before it is dropped as too slow. Replies are not counted: backpressure bounds them. Default 16 MiB.
   */
  maxBufferedBytes?: number;
  /** Default deadline of `handle.shutdown()` (a daemon's drain). Default 10 000 ms. */
  drainTimeoutMs?: number;
  /**
   * After the peer's EOF, how long in-flight requests may still finish and be answered. Default 0:
   * EOF means the peer hung up (stdio clients close stdin to leave; a socket peer that closed looks
   * the same), so in-flight requests are cancelled at once: their signals abort, and a peer that
   * only half-closed is answered -32000 "Connection is closing". Set it for scripts that half-close
   * and then wait for their answers.
   */
  halfCloseDrainMs?: number;
  /**
   * Closes a connection that sent nothing for this long while it had no request in flight and no
   * listen stream open (a forgotten client). 0 = never (default).
   */
  idleTimeoutMs?: number;
  /** Reading pauses while this many requests are running or queued (TCP backpressure). Default 4 × the in-flight bound, at least 64. */
  maxPendingRequests?: number;
}

export interface ConnectionHandle {
  readonly peer: Peer;
  readonly connection: CoreConnection;
  /** Resolves once the connection is torn down (subscriptions removed, onDisconnect called). */
  readonly closed: Promise<void>;
  /**
   * Stops reading, lets in-flight requests finish for up to `deadlineMs`, ends listen streams
   * with their final result, then ends the stream.
   */
  shutdown(deadlineMs?: number): Promise<void>;
  /** Drops the connection at once. */
  destroy(reason?: string): void;
}

/** What ending the underlying stream(s) means for this transport. */
export interface StreamEnds {
  /** Flushes and ends the output (sockets: `end()`). */
  graceful(): void;
  /** Tears everything down now (sockets: `destroy()`). */
  abrupt(): void;
}

/** Serves one duplex byte stream (a socket) until it ends. */
export function serveConnection(
  stream: Duplex,
  origin: PeerOrigin,
  core: ServerCore,
  options: ServeConnectionOptions = {},
): ConnectionHandle {
  const lingerMs = options.writeTimeoutMs ?? DEFAULT_WRITE_TIMEOUT_MS;
  return serveStreams(stream, stream, origin, core, options, {
    graceful: () => {
      stream.end();
      // Keep reading (and discarding): only reading notices the peer's FIN or reset, so a peer that
      // vanished while we had stopped reading it still frees its socket and what the loop holds.
      stream.resume();
      // A peer that neither reads our last bytes nor closes its half is cut off (0: never, as for writes).
      if (lingerMs <= 0 || stream.destroyed) return;
      const linger = setTimeout(() => stream.destroy(), lingerMs);
      linger.unref();
      stream.once('close', () => clearTimeout(linger));
    },
    abrupt: () => stream.destroy(),
  });
}

/** Serves a separate input and output (stdio); `ends` says how to close them. */
export function serveStreams(
  input: Readable,
  output: Writable,
  origin: PeerOrigin,
  core: ServerCore,
  options: ServeConnectionOptions,
  ends: StreamEnds,
): ConnectionHandle {
  return new StreamLoop(input, output, origin, core, options, ends).handle;
}

type State = 'open' | 'draining' | 'closed';

class StreamLoop {
  readonly handle: ConnectionHandle;
  private state: State = 'open';
  private readonly connection: CoreConnection;
  private readonly writer: StreamPushWriter;
  private readonly decoder: FrameDecoder;
  /** Decoded frames waiting for their turn while the peer is behind on reading or too much is pending. */
  private backlog: DecodedFrame[] = [];
  private backlogHead = 0;
  /** The writer's queue is over its high-water mark: take no new work until the peer reads. */
  private congested = false;
  /** This connection's share of the core's input budget (its unfinished line). */
  private heldInput = 0;
  /** Frames handed to the connection whose answer has not reached the writer yet. */
  private outstanding = 0;
  private readonly quiet: Array<() => void> = [];
  private readonly maxPending: number;
  private readonly drainTimeoutMs: number;
  private readonly halfCloseDrainMs: number;
  private readonly idleTimeoutMs: number;
  private idleTimer: NodeJS.Timeout | undefined;
  private lastInput = Date.now();
  private resolveClosed: () => void = () => {};
  private shuttingDown: Promise<void> | undefined;

  constructor(
    private readonly input: Readable,
    output: Writable,
    origin: PeerOrigin,
    private readonly core: ServerCore,
    options: ServeConnectionOptions,
    private readonly ends: StreamEnds,
  ) {
    const transport = options.transport ?? 'stream';
    const peer: Peer = Object.freeze({
      origin,
      connectionId: options.connectionId ?? core.mintConnectionId(transport),
      transport,
      attributes: Object.freeze({ ...options.attributes }),
    });
    this.decoder = new FrameDecoder({ maxFrameBytes: options.maxFrameBytes ?? DEFAULT_MAX_FRAME_BYTES });
    this.drainTimeoutMs = options.drainTimeoutMs ?? DEFAULT_DRAIN_TIMEOUT_MS;
    this.halfCloseDrainMs = options.halfCloseDrainMs ?? 0;
    this.idleTimeoutMs = options.idleTimeoutMs ?? 0;
    this.writer = ndjsonWriter(output, {
      id: peer.connectionId,
      // Unset sizes take the writer's own defaults.
      maxBufferedBytes: options.maxBufferedBytes,
      highWaterBytes: options.highWaterBytes,
      writeTimeoutMs: options.writeTimeoutMs ?? DEFAULT_WRITE_TIMEOUT_MS,
      onPressure: (congested) => {
        this.congested = congested;
        if (congested) this.input.pause();
        else this.pump();
      },
      onClose: (reason, abrupt) => {
        if (abrupt) this.drop(reason ?? 'writer failed', 'warn');
        else void this.shutdown(0);
      },
    });
    this.connection = core.openConnection(peer, this.writer);
    this.maxPending = options.maxPendingRequests ?? Math.max(64, 4 * core.maxInFlightPerConnection);
    const closed = new Promise<void>((resolve) => {
      this.resolveClosed = resolve;
    });
    this.handle = {
      peer,
      connection: this.connection,
      closed,
      shutdown: (deadlineMs) => this.shutdown(deadlineMs ?? this.drainTimeoutMs),
      destroy: (reason) => this.drop(reason ?? 'destroyed by the server', 'info'),
    };
    let ended = false;
    input.on('data', (chunk: Buffer | string) => this.onData(chunk));
    if (this.idleTimeoutMs > 0) {
      this.idleTimer = setTimeout(() => this.checkIdle(), this.idleTimeoutMs);
      this.idleTimer.unref();
      void closed.then(() => clearTimeout(this.idleTimer));
    }
    input.on('end', () => {
      ended = true;
      this.onEnd();
    });
    input.on('close', () => {
      if (!ended) this.drop('input closed');
    });
    input.on('error', (error) => this.drop(`input error: ${error.message}`));
    if (output !== (input as unknown)) {
      output.on('error', (error) => this.drop(`output error: ${error.message}`));
      output.on('close', () => this.drop('output closed'));
    }
  }

  private get connectionId(): string {
    return this.connection.peer.connectionId;
  }

  private onData(chunk: Buffer | string): void {
    if (this.state !== 'open') return;
    this.lastInput = Date.now();
    const frames = this.decoder.push(chunk);
    for (const frame of frames) this.backlog.push(frame);
    this.pump();
    this.holdInput();
  }

  /**
   * Dispatches queued frames in order while the peer keeps up: none while the writer is congested,
   * and a request waits while too many are pending. Reading stays paused until the backlog is empty.
   */
  private pump(): void {
    while (this.backlogHead < this.backlog.length && this.state !== 'closed') {
      if (this.congested && this.state === 'open') break;
      const frame = this.backlog[this.backlogHead] as DecodedFrame;
      if (this.takesSlot(frame) && this.connection.pending >= this.maxPending && this.state === 'open') break;
      this.backlog[this.backlogHead] = undefined as unknown as DecodedFrame;
      this.backlogHead += 1;
      this.dispatch(frame);
    }
    if (this.backlogHead >= this.backlog.length && this.backlogHead > 0) {
      this.backlog = [];
      this.backlogHead = 0;
    }
    if (this.state !== 'open') return;
    const blocked = this.congested || this.backlog.length > 0 || this.connection.pending >= this.maxPending;
    if (blocked) this.input.pause();
    else if (this.input.isPaused()) this.input.resume();
  }

  /** What the connection may run as a request waits its turn (the core knows its wire profile's rule). */
  private takesSlot(frame: DecodedFrame): boolean {
    return frame.kind !== 'oversized' && this.connection.runsAsRequest(frame);
  }

  /** Keeps this connection's unfinished line within the server-wide input budget. */
  private holdInput(): void {
    const held = this.decoder.bufferedBytes;
    if (held === this.heldInput) return;
    if (this.core.inputBudget.resize(this.heldInput, held)) {
      this.heldInput = held;
      return;
    }
    const limit = this.core.inputBudget.limit;
    this.core.logger.warn('closing connection: server input budget exhausted', {
      connectionId: this.connectionId,
      held,
      limit,
    });
    this.connection.writer.write(errorResponse(null, refuse.inputBudgetExceeded(limit).toJSON()));
    this.releaseInput();
    void this.shutdown(0);
  }

  private releaseInput(): void {
    this.core.inputBudget.resize(this.heldInput, 0);
    this.heldInput = 0;
  }

  /** One timer for the connection's life, re-armed with refresh(): no allocation per frame. */
  private checkIdle(): void {
    if (this.state !== 'open') return;
    const quietFor = Date.now() - this.lastInput;
    const busy = this.connection.pending > 0 || this.connection.listenCount > 0;
    if (!busy && quietFor >= this.idleTimeoutMs) {
      this.core.logger.info('closing idle connection', { connectionId: this.connectionId, idleMs: quietFor });
      void this.shutdown(0);
      return;
    }
    this.idleTimer?.refresh();
  }

  private onEnd(): void {
    if (this.state !== 'open') return;
    for (const frame of this.decoder.end()) this.backlog.push(frame);
    this.releaseInput();
    this.pump();
    // A hang-up and a half-close look alike; by default treat EOF as the peer leaving, so its
    // in-flight work (a sync spawn, say) is cancelled now rather than after a drain deadline.
    void this.shutdown(this.halfCloseDrainMs);
  }

  private dispatch(frame: DecodedFrame): void {
    if (frame.kind === 'oversized') {
      this.core.logger.warn('closing connection: frame too large', {
        connectionId: this.connectionId,
        limit: frame.limit,
      });
      this.connection.writer.write(errorResponse(null, refuse.payloadTooLarge(frame.limit).toJSON()));
      void this.shutdown(0);
      return;
    }
    this.outstanding += 1;
    this.connection.handle(frame).then(this.onAnswer, this.onAnswerFailed);
  }

  // Bound once per connection, not two closures per frame.
  private readonly onAnswer = (response: JsonRpcResponse | undefined): void => {
    if (response !== undefined) this.reply(response);
    this.answered();
  };

  private readonly onAnswerFailed = (thrown: unknown): void => {
    this.core.logger.error('connection loop failed to answer', {
      connectionId: this.connectionId,
      ...errorFields(thrown),
    });
    this.answered();
  };

  /** Writes an answer; one that cannot be encoded (a BigInt, a cycle) becomes a generic -32603. */
  private reply(response: JsonRpcResponse): void {
    try {
      this.connection.writer.write(response);
    } catch (thrown) {
      this.core.logger.error('answer could not be encoded', {
        connectionId: this.connectionId,
        id: response.id,
        ...errorFields(thrown),
      });
      this.connection.writer.write(errorResponse(response.id, refuse.internalError().toJSON()));
    }
  }

  /** One frame fully handled (its answer, if any, is with the writer). */
  private answered(): void {
    this.outstanding -= 1;
    if (this.backlogHead < this.backlog.length || this.input.isPaused()) this.pump();
    if (this.outstanding === 0) for (const resolve of this.quiet.splice(0)) resolve();
  }

  /** Resolves once every handled frame's answer reached the writer. */
  private allAnswered(): Promise<void> {
    if (this.outstanding === 0) return Promise.resolve();
    return new Promise((resolve) => this.quiet.push(resolve));
  }

  private shutdown(deadlineMs: number): Promise<void> {
    if (this.shuttingDown !== undefined) return this.shuttingDown;
    if (this.state === 'closed') return this.handle.closed;
    this.state = 'draining';
    this.input.pause();
    // Nothing more is read: an unfinished line will never complete, so its bytes go now.
    this.decoder.close();
    this.releaseInput();
    this.shuttingDown = this.drain(deadlineMs);
    return this.shuttingDown;
  }

  private async drain(deadlineMs: number): Promise<void> {
    if (deadlineMs > 0 && this.connection.pending > 0) {
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, deadlineMs);
      });
      await Promise.race([this.connection.idle(), deadline]);
      clearTimeout(timer);
    }
    if (this.state === 'closed') return;
    this.connection.close({ graceful: true });
    // Frames still waiting their turn reach the closed connection: requests among them are answered -32000.
    this.pump();
    // Let the final results (and answers of the drained requests) reach the writer.
    await this.allAnswered();
    // drop() may have run meanwhile (the peer hung up).
    if ((this.state as State) === 'closed') return;
    this.state = 'closed';
    // The writer hands a tick's answers to the stream at the end of the tick: these go before the end.
    this.writer.flush();
    this.ends.graceful();
    this.resolveClosed();
  }

  /** Peer-side failures (resets, hang-ups) are routine: debug. A peer we drop for misbehaving: warn. */
  private drop(reason: string, level: 'debug' | 'info' | 'warn' = 'debug'): void {
    if (this.state === 'closed') return;
    this.state = 'closed';
    this.core.logger[level]('dropping connection', { connectionId: this.connectionId, reason });
    this.backlog = [];
    this.backlogHead = 0;
    this.decoder.close();
    this.releaseInput();
    this.connection.close();
    this.ends.abrupt();
    this.resolveClosed();
  }
}

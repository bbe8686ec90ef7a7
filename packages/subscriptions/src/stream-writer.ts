/** A bounded, non-blocking PushWriter over any Writable, shared by the NDJSON and SSE framings. */
import type { Writable } from 'node:stream';
import type { JsonRpcMessage } from '@agentd/rpc-frame';
import type { PushWriter } from './push-writer.js';

const DEFAULT_MAX_BUFFERED_BYTES = 16 * 1024 * 1024;
const DEFAULT_HIGH_WATER_BYTES = 1024 * 1024;
const MAX_BATCH_CHARS = 1024 * 1024;

export interface StreamWriterOptions {
  /** Identity for distinct-writer broadcasts. Default: a random UUID. */
  id?: string;
  /**
   * Bound on unsolicited bytes (notifications and server-to-client requests) queued and not yet
   * flushed. A push that would pass it closes the writer abruptly (the peer is too slow). A single
   * message is always accepted. Responses are not counted: they answer what the peer asked, and
   * their volume is bounded by the reader stopping when the writer is congested. Default 16 MiB.
   */
  maxBufferedBytes?: number | undefined;
  /**
   * Queued bytes above which the writer is congested (`onPressure(true)`); it is relieved below
   * half of it (`onPressure(false)`). Default 1 MiB.
   */
  highWaterBytes?: number | undefined;
  /** Congestion changes, so the reader can stop taking requests while the peer catches up. */
  onPressure?: (congested: boolean) => void;
  /** Closes the writer abruptly when queued bytes make no progress for this long. 0 = never. Default 0. */
  writeTimeoutMs?: number;
  /**
   * Called once when the writer closes, with why and whether it was abrupt (overflow, timeout,
   * stream failure). When given, the writer does not end or destroy the stream itself.
   */
  onClose?: (reason: string | undefined, abrupt: boolean) => void;
}

export class StreamPushWriter implements PushWriter {
  readonly id: string;
  private readonly maxBufferedBytes: number;
  private readonly highWaterBytes: number;
  private readonly writeTimeoutMs: number;
  private isClosed = false;
  private unflushed = 0;
  /** Bytes of queued pushes (not responses), the ones `maxBufferedBytes` bounds. */
  private pushedBytes = 0;
  private isCongested = false;
  private lastProgress = 0;
  private timer: NodeJS.Timeout | undefined;
  /** The delay the timer was created with (refresh() reuses it). */
  private timerDelay = 0;
  private timerArmed = false;
  /** This tick's messages, handed to the stream as one write on the next tick. */
  private batch = '';
  private batchMessages = 0;
  private batchPushedBytes = 0;
  private flushScheduled = false;
  private readonly flushOnTick = (): void => {
    this.flushScheduled = false;
    this.flush();
  };

  constructor(
    private readonly stream: Writable,
    private readonly encode: (message: JsonRpcMessage) => string,
    private readonly options: StreamWriterOptions = {},
  ) {
    this.id = options.id ?? globalThis.crypto.randomUUID();
    this.maxBufferedBytes = options.maxBufferedBytes ?? DEFAULT_MAX_BUFFERED_BYTES;
    this.highWaterBytes = options.highWaterBytes ?? DEFAULT_HIGH_WATER_BYTES;
    this.writeTimeoutMs = options.writeTimeoutMs ?? 0;
    stream.once('close', () => this.finish('stream closed', true, false));
    stream.on('error', () => this.finish('stream error', true, false));
  }

  get closed(): boolean {
    return this.isClosed;
  }

  /** Bytes written and not yet flushed to the peer (this tick's batch included). */
  get bufferedBytes(): number {
    return this.stream.writableLength + this.batch.length;
  }

  /** True while more than `highWaterBytes` are queued (until it falls below half of that). */
  get congested(): boolean {
    return this.isCongested;
  }

  write(message: JsonRpcMessage): boolean {
    if (this.isClosed) return false;
    if (this.stream.destroyed || !this.stream.writable) {
      this.finish('stream is not writable', true, false);
      return false;
    }
    return this.send(this.encode(message), !('id' in message && !('method' in message)));
  }

  /** Writes pre-encoded bytes (an SSE comment, say) under the bound of pushes. */
  writeRaw(data: string): boolean {
    return this.send(data, true);
  }

  private send(data: string, pushed: boolean): boolean {
    if (this.isClosed) return false;
    const bytes = pushed ? Buffer.byteLength(data) : 0;
    if (pushed && this.pushedBytes > 0 && this.pushedBytes + bytes > this.maxBufferedBytes) {
      this.finish(
        `peer too slow: more than ${this.maxBufferedBytes} bytes of notifications buffered`,
        true,
        true,
      );
      return false;
    }
    // A batch stays a modest string: a tick that answers many large results writes as it goes.
    if (this.batch.length > 0 && this.batch.length + data.length > MAX_BATCH_CHARS) this.flush();
    this.unflushed += 1;
    this.pushedBytes += bytes;
    this.batch += data;
    this.batchMessages += 1;
    this.batchPushedBytes += bytes;
    if (!this.flushScheduled) {
      this.flushScheduled = true;
      process.nextTick(this.flushOnTick);
    }
    this.armTimer();
    if (!this.isCongested && this.bufferedBytes > this.highWaterBytes) {
      this.isCongested = true;
      this.options.onPressure?.(true);
    }
    return true;
  }

  /**
   * Hands what was written this tick to the stream now (it happens on its own at the end of the
   * tick). Call it before ending the stream yourself; `close()` does it for you.
   */
  flush(): void {
    if (this.batchMessages === 0) return;
    const data = this.batch;
    const messages = this.batchMessages;
    const bytes = this.batchPushedBytes;
    if (this.stream.destroyed || this.stream.writableEnded) {
      this.dropBatch();
      return;
    }
    this.batch = '';
    this.batchMessages = 0;
    this.batchPushedBytes = 0;
    // One string, one write, one callback: a pipelined burst's answers cost one syscall.
    this.stream.write(data, () => this.flushed(messages, bytes));
  }

  close(reason?: string): void {
    this.finish(reason, false, true);
  }

  private flushed(messages: number, bytes: number): void {
    this.unflushed -= messages;
    this.pushedBytes -= bytes;
    this.lastProgress = Date.now();
    if (this.isCongested && !this.isClosed && this.bufferedBytes <= this.highWaterBytes / 2) {
      this.isCongested = false;
      this.options.onPressure?.(false);
    }
  }

  /**
   * One Timeout per writer, re-armed with refresh() (no allocation per write) while nothing is
   * armed; a writer with nothing queued lets it lapse until the next write.
   */
  private armTimer(): void {
    if (this.writeTimeoutMs <= 0) return;
    if (this.unflushed === 1) this.lastProgress = Date.now();
    if (this.timerArmed) return;
    if (this.timer === undefined || this.timerDelay !== this.writeTimeoutMs) {
      this.schedule(this.writeTimeoutMs);
      return;
    }
    this.timer.refresh();
    this.timerArmed = true;
  }

  private schedule(delayMs: number): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.checkStall(), delayMs);
    this.timer.unref();
    this.timerDelay = delayMs;
    this.timerArmed = true;
  }

  private checkStall(): void {
    this.timerArmed = false;
    if (this.isClosed || this.unflushed === 0) return;
    const stalledFor = Date.now() - this.lastProgress;
    if (stalledFor >= this.writeTimeoutMs) {
      this.finish(`write timed out after ${this.writeTimeoutMs} ms`, true, true);
      return;
    }
    // Progress was made since the timer was set: look again exactly when this stall, if it lasts,
    // reaches the timeout, so a peer that stops reading is dropped on time, not a period late.
    this.schedule(this.writeTimeoutMs - stalledFor);
  }

  private clearTimer(): void {
    if (this.timer === undefined) return;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.timerArmed = false;
  }

  private finish(reason: string | undefined, abrupt: boolean, act: boolean): void {
    if (this.isClosed) return;
    this.isClosed = true;
    this.clearTimer();
    // An abrupt end drops what is not yet written; a graceful one delivers it first.
    if (abrupt) this.dropBatch();
    else this.flush();
    if (this.options.onClose !== undefined) {
      this.options.onClose(reason, abrupt);
      return;
    }
    if (!act) return;
    if (abrupt) this.stream.destroy();
    else this.stream.end();
  }

  private dropBatch(): void {
    this.unflushed -= this.batchMessages;
    this.pushedBytes -= this.batchPushedBytes;
    this.batch = '';
    this.batchMessages = 0;
    this.batchPushedBytes = 0;
  }
}

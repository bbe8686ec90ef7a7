/** Serves a ContractServer over NDJSON stdio: one request per line in, one response per line out. */
import type { Readable, Writable } from 'node:stream';
import {
  DEFAULT_MAX_FRAME_BYTES,
  ErrorCode,
  encodeFrame,
  errorResponse,
  type JsonRpcNotification,
  type Logger,
} from '@agentd/rpc-frame';
import { type Peer, redirectConsoleToStderr } from '@agentd/server';
import { consoleLogger } from './console-logger.js';
import type { ContractServer } from './contract-server.js';
import { TransportAnswers } from './transport-answers.js';

export interface McpStdioOptions {
  /** Default process.stdin. */
  stdin?: Readable;
  /** Default process.stdout. */
  stdout?: Writable;
  /** Longest line in bytes; a longer one is answered -32600 and skipped. Default 16 MiB. */
  maxLineBytes?: number;
  /** Requests answered at once; past it input is paused until one finishes. Default 32. */
  maxInFlight?: number;
  /**
   * While serving, console.log/info/debug write to stderr so stray prints cannot corrupt the
   * protocol stream. Default true when stdout is process.stdout.
   */
  redirectConsole?: boolean;
  /** Where a request that failed inside the server (answered -32603) is reported, at warn. Default: console (stderr). */
  logger?: Logger;
}

const NEWLINE = 0x0a;

const STDIO_PEER: Peer = Object.freeze({
  origin: 'stdio',
  connectionId: 'stdio',
  transport: 'stdio',
  attributes: Object.freeze({}),
});

/**
 * Answers each line with `server.handle` (responses may come out of order; each carries its id)
 * and resolves once stdin ended and every answer was written. Blank lines are skipped.
 */
export function serveMcpStdio(server: ContractServer, options: McpStdioOptions = {}): Promise<void> {
  const stdin = options.stdin ?? process.stdin;
  const stdout = options.stdout ?? process.stdout;
  const maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_FRAME_BYTES;
  const maxInFlight = options.maxInFlight ?? 32;
  const answers = new TransportAnswers(server, options.logger ?? consoleLogger, 'stdio');
  const restore =
    (options.redirectConsole ?? stdout === process.stdout) ? redirectConsoleToStderr() : () => {};
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  /** Set while the rest of an overlong line is being skipped. */
  let skipping = false;
  let inFlight = 0;
  let ended = false;
  let finish: () => void = () => {};
  const done = new Promise<void>((resolve) => {
    finish = resolve;
  });

  const write = (text: string): void => {
    if (!stdout.writable) return;
    if (!stdout.write(text) && !stdin.isPaused()) {
      stdin.pause();
      stdout.once('drain', resume);
    }
  };
  const resume = (): void => {
    if (inFlight < maxInFlight && stdout.writableNeedDrain !== true) stdin.resume();
  };
  const settle = (): void => {
    if (ended && inFlight === 0) {
      restore();
      finish();
    }
  };
  const answer = (line: string): void => {
    if (line.trim() === '') return;
    inFlight++;
    if (inFlight >= maxInFlight) stdin.pause();
    const notify = (message: JsonRpcNotification): void => write(encodeFrame(message));
    void answers.answer(line, { peer: STDIO_PEER, notify }).then((response) => {
      try {
        write(`${response}\n`);
      } finally {
        inFlight--;
        resume();
        settle();
      }
    });
  };
  const tooLong = (): void => {
    write(
      encodeFrame(
        errorResponse(null, {
          code: ErrorCode.InvalidRequest,
          message: `Invalid Request: a line is limited to ${maxLineBytes} bytes`,
        }),
      ),
    );
  };

  stdin.on('data', (chunk: Buffer | string) => {
    let bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    let newline = bytes.indexOf(NEWLINE);
    while (newline !== -1) {
      const head = bytes.subarray(0, newline);
      if (skipping) skipping = false;
      else if (pendingBytes + head.length > maxLineBytes) tooLong();
      else answer(Buffer.concat([...pending, head]).toString('utf8'));
      pending = [];
      pendingBytes = 0;
      bytes = bytes.subarray(newline + 1);
      newline = bytes.indexOf(NEWLINE);
    }
    if (bytes.length === 0 || skipping) return;
    if (pendingBytes + bytes.length > maxLineBytes) {
      // Answer once, drop what is held, and skip to the next newline: the stream stays usable.
      tooLong();
      skipping = true;
      pending = [];
      pendingBytes = 0;
      return;
    }
    pending.push(Buffer.from(bytes));
    pendingBytes += bytes.length;
  });
  const end = (): void => {
    if (ended) return;
    ended = true;
    if (pendingBytes > 0 && !skipping) answer(Buffer.concat(pending).toString('utf8'));
    pending = [];
    settle();
  };
  stdin.once('end', end);
  stdin.once('close', end);
  stdin.once('error', end);
  // A reader that went away (EPIPE) ends the session; answers still running are dropped.
  stdout.once('error', () => {
    stdin.pause();
    end();
  });
  return done;
}

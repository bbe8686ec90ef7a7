/** The supervisor's end of the agent protocol: NDJSON JSON-RPC requests to a child over its stdio. */
import type { Readable, Writable } from 'node:stream';
import {
  type DecodedFrame,
  ErrorCode,
  encodeFrame,
  errorResponse,
  FrameDecoder,
  type JsonObject,
  type JsonRpcErrorObject,
  type JsonRpcResponse,
  notification,
} from '@agentd/rpc-frame';
import type { AgentEvent } from './types.js';

export type TurnOutcome = { ok: true; result: JsonObject } | { ok: false; error: JsonRpcErrorObject };

export interface ProtocolClientEvents {
  /** An `event` notification from the agent. */
  onEvent(event: AgentEvent): void;
  /** The agent broke the protocol (non-JSON line, wrong shape, oversized frame): the caller kills it. */
  onViolation(reason: string, kind: 'protocol_error' | 'output_too_large'): void;
  /** Something worth a warning that does not end the run (e.g. a reply to no request). */
  onWarning(message: string): void;
}

interface Pending {
  resolve: (outcome: TurnOutcome) => void;
}

const PREVIEW_CHARS = 200;

export class ProtocolClient {
  private readonly decoder: FrameDecoder;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private broken = false;

  constructor(
    stdout: Readable,
    private readonly stdin: Writable,
    maxFrameBytes: number,
    private readonly events: ProtocolClientEvents,
  ) {
    this.decoder = new FrameDecoder({ maxFrameBytes });
    stdout.on('data', (chunk: Buffer) => this.accept(this.decoder.push(chunk)));
    stdout.on('end', () => this.accept(this.decoder.end()));
  }

  /** Sends a request; the promise settles with the agent's answer, or never if the child dies (the caller races its exit). */
  request(method: string, params: JsonObject): { id: number; outcome: Promise<TurnOutcome> } {
    const id = this.nextId++;
    const outcome = new Promise<TurnOutcome>((resolve) => this.pending.set(id, { resolve }));
    this.write(encodeFrame({ jsonrpc: '2.0', id, method, params }));
    return { id, outcome };
  }

  notify(method: string, params: JsonObject): void {
    this.write(encodeFrame(notification(method, params)));
  }

  private write(text: string): void {
    if (this.stdin.writable) this.stdin.write(text);
  }

  private accept(frames: DecodedFrame[]): void {
    for (const frame of frames) {
      if (this.broken) return;
      this.acceptOne(frame);
    }
  }

  private acceptOne(frame: DecodedFrame): void {
    if (frame.kind === 'oversized') {
      this.violate(`agent wrote a frame larger than ${frame.limit} bytes`, 'output_too_large');
    } else if (frame.kind === 'invalid') {
      this.violate(`agent wrote a line that is not a JSON-RPC message (${frame.reason})`, 'protocol_error');
    } else if (frame.kind === 'response') {
      this.settle(frame.message);
    } else if (frame.kind === 'notification') {
      if (frame.message.method === 'event') this.events.onEvent(toEvent(frame.message.params));
      else this.events.onWarning(`agent sent an unknown notification ${preview(frame.message.method)}`);
    } else {
      const message = `the supervisor serves no method ${preview(frame.message.method)}`;
      this.write(encodeFrame(errorResponse(frame.message.id, { code: ErrorCode.MethodNotFound, message })));
    }
  }

  private settle(response: JsonRpcResponse): void {
    const id = response.id;
    const pending = typeof id === 'number' ? this.pending.get(id) : undefined;
    if (pending === undefined || typeof id !== 'number') {
      this.events.onWarning(`agent answered a request that was never sent (id ${JSON.stringify(id)})`);
      return;
    }
    this.pending.delete(id);
    if ('error' in response) pending.resolve({ ok: false, error: response.error });
    else pending.resolve({ ok: true, result: response.result });
  }

  private violate(reason: string, kind: 'protocol_error' | 'output_too_large'): void {
    this.broken = true;
    this.events.onViolation(reason, kind);
  }
}

function toEvent(params: JsonObject | undefined): AgentEvent {
  // The params were just parsed from the agent's line and nobody else holds them: an event with a
  // type is passed on as is (a copy per event is most of what a spread costs on this path).
  if (params !== undefined && typeof params.type === 'string') return params as AgentEvent;
  return { ...params, type: 'log' };
}

function preview(text: string): string {
  return JSON.stringify(text.length > PREVIEW_CHARS ? `${text.slice(0, PREVIEW_CHARS)}…` : text);
}

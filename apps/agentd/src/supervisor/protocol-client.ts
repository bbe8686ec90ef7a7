/** The supervisor's end of the agent protocol: NDJSON JSON-RPC requests to a child over its stdio. */
import type { Readable, Writable } from 'node:stream';
import {
  type JsonObject,
  JsonRpcErrorCode,
  type JsonRpcErrorObject,
  RpcPeer,
  WireError,
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

const PREVIEW_CHARS = 200;

export class ProtocolClient {
  private readonly peer: RpcPeer;

  constructor(stdout: Readable, stdin: Writable, maxFrameBytes: number, events: ProtocolClientEvents) {
    this.peer = new RpcPeer({
      write: (text) => {
        if (stdin.writable) stdin.write(text);
      },
      maxFrameBytes,
      onNotification: (message) => {
        if (message.method === 'event') events.onEvent(toEvent(message.params));
        else events.onWarning(`agent sent an unknown notification ${preview(message.method)}`);
      },
      onRequest: (request) => ({
        error: {
          code: JsonRpcErrorCode.MethodNotFound,
          message: `the supervisor serves no method ${preview(request.method)}`,
        },
      }),
      onStrayResponse: (response) =>
        events.onWarning(`agent answered a request that was never sent (id ${JSON.stringify(response.id)})`),
      onViolation: (violation) => {
        if (violation.kind === 'oversized') {
          events.onViolation(`agent wrote a frame larger than ${violation.limit} bytes`, 'output_too_large');
          return;
        }
        const reason = `agent wrote a line that is not a JSON-RPC message (${violation.reason})`;
        // Nothing the agent writes after a violation is read: the run is being killed.
        this.peer.close();
        events.onViolation(reason, 'protocol_error');
      },
    });
    stdout.on('data', (chunk: Buffer) => this.peer.push(chunk));
    stdout.on('end', () => this.peer.end());
    // Once stdout is gone no answer can come: the pending requests are let go (see NEVER).
    stdout.on('close', () => this.peer.close());
  }

  /** Sends a request; the promise settles with the agent's answer, or never if the child dies (the caller races its exit). */
  request(method: string, params: JsonObject): { id: number; outcome: Promise<TurnOutcome> } {
    const { id, outcome } = this.peer.request(method, params);
    return { id, outcome: outcome.then(toTurnOutcome) };
  }

  notify(method: string, params: JsonObject): void {
    this.peer.notify(method, params);
  }
}

function toTurnOutcome(
  outcome: { ok: true; result: JsonObject } | { ok: false; error: Error },
): TurnOutcome | Promise<never> {
  if (outcome.ok) return outcome;
  if (outcome.error instanceof WireError) return { ok: false, error: outcome.error.toJSON() };
  // The agent broke the protocol or closed its stdout: the run's end answers, which the caller
  // races. A promise of its own, so nothing long-lived holds on to the waiting caller.
  return new Promise<never>(() => {});
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

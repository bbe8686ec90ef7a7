/** The slice of `@agentd/server`'s ServerCore the HTTP transport drives. */
import type { Classified, JsonRpcMessage, JsonRpcNotification, JsonRpcResponse } from '@agentd/rpc-frame';
import type { Peer } from '@agentd/server';

/** The server's own `Peer`: HTTP peers are `management` when authenticated, `anonymous` otherwise. */
export type HttpPeer = Peer;

/** Structurally identical to `@agentd/subscriptions`' `PushWriter`. */
export interface HttpPushWriter {
  readonly id: string;
  readonly closed: boolean;
  write(message: JsonRpcMessage): boolean;
  close(reason?: string): void;
}

export interface HandleOptions {
  /** Request-scoped notifications (and, legacy, server-to-client requests) for this POST's stream. */
  notify?: (message: JsonRpcNotification) => void;
  signal?: AbortSignal;
}

export interface CoreConnectionPort {
  handle(frame: Classified, options?: HandleOptions): Promise<JsonRpcResponse | undefined>;
  /** `graceful` resolves open listen streams with their final result before closing. */
  close(options?: { graceful?: boolean }): void;
}

/** What the transport needs from a ServerCore: cheap logical connections. */
export interface CorePort {
  openConnection(peer: HttpPeer, writer: HttpPushWriter): CoreConnectionPort;
  /** The core's configured protocol versions, newest first; without it, every known version. */
  supportedVersions?(): readonly string[];
}

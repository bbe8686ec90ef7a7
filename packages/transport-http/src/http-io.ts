/**
 * The host-neutral shape of one HTTP exchange. The protocol code (routing, eras, sessions, SSE)
 * speaks only this; each host (Web `Request`/`Response`, `node:http`) implements it in one
 * adapter, so every host runs the same rules.
 */

import type { HeaderReader } from '@agentd/lifecycle';

export type { HeaderReader };

/** The request side. */
export interface HttpIncoming {
  readonly method: string;
  /** The URL path, without the query string. */
  readonly path: string;
  readonly headers: HeaderReader;
  /** The client's address when the host knows it. */
  readonly remoteAddress: string | undefined;
  /** The absolute URL of the request (for RFC 9728 resource metadata). */
  url(): string;
  /** The whole body as UTF-8 text; rejects with LocalError `body_too_large` past `limit` bytes (declared or received). */
  readText(limit: number): Promise<string>;
}

/** The response side: one plain answer, or one streamed answer written in pieces. */
export interface HttpOutgoing {
  /** True once an answer has begun or the client went away. */
  readonly sent: boolean;
  /** The whole answer at once (the adapter adds `content-length`). */
  send(status: number, headers: Readonly<Record<string, string>>, body?: string): void;
  /** Begins a streamed answer; the headers go out at once. */
  open(status: number, headers: Readonly<Record<string, string>>): void;
  /** Appends to a streamed answer. */
  write(chunk: string): void;
  /** Bytes written but not yet taken by the client. */
  readonly bufferedBytes: number;
  /** Ends a streamed answer gracefully. */
  end(): void;
  /** Cuts the answer (a client that does not read). */
  destroy(): void;
  /** Called once when the answer is complete or the client went away, whichever comes first. */
  onClose(listener: () => void): void;
  /**
   * Hosts that notice a client gone only when writing to it (workerd, Deno): a long request
   * starts its SSE answer so that keep-alives find out. Absent: the host notices on its own.
   */
  readonly seesCloseOnWrite?: boolean;
  /**
   * Called while serving this exchange: a function that later runs tasks in this exchange's own
   * request context. workerd ties I/O objects (an AbortController too) to the request that made
   * them, so another request acting on this one (a legacy cancel) hands the work over. Absent:
   * any request may act directly.
   */
  runner?(): (task: () => void) => void;
}

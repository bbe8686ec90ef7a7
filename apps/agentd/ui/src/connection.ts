/** What the page needs from agentd, however it reaches it: MCP requests, and pushed resource updates where the way allows. */

export type Json = Record<string, unknown>;

/** The page's own failures, with a typed code (never shown raw to anyone but the operator looking at it). */
export type PageErrorCode = 'unauthorized' | 'forbidden' | 'http' | 'rpc' | 'tool' | 'bridge';

export class PageError extends Error {
  override name = 'PageError';
  constructor(
    readonly code: PageErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/** What went wrong, as the page tells it. */
export function problem(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export interface Connection {
  /** One MCP request (`tools/call`, `resources/read`); resolves with its result. */
  request(method: string, params: Json): Promise<Json>;
  /**
   * One request whose notifications (progress, log messages) are handed to `onNotification` as
   * they arrive, until it answers or `signal` aborts it. Absent inside a host: its bridge passes
   * no request notifications, so the page polls there.
   */
  stream?(
    method: string,
    params: Json,
    onNotification: (notification: Json) => void,
    signal: AbortSignal,
  ): Promise<Json>;
  /**
   * Calls `onUpdate` for each `notifications/resources/updated` of these URIs until the returned
   * function is called. Absent where nothing can be pushed (inside a host): the page polls then.
   */
  watch?(uris: readonly string[], onUpdate: (uri: string) => void): () => void;
}

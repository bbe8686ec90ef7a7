/** What a server child is told to start, and how it reports readiness and learns it should stop. */

/**
 * `agentd-fetch`: agentd's stack through `createFetchHandler` behind `@hono/node-server`;
 * `agentd-bun`: the same fetch handler under Bun's own server (HTTP only, run by the `bun` package's binary).
 */
export type Impl =
  | 'agentd'
  | 'agentd-codemode'
  | 'agentd-fetch'
  | 'agentd-bun'
  | 'sdk-v1'
  | 'sdk-v2'
  | 'floor';
/** `http` is a stateful (session) server where the implementation distinguishes; agentd and the floor serve both eras on it. */
export type ChildTransport = 'stdio' | 'unix' | 'http' | 'http-stateless';

export interface ServerLaunch {
  readonly impl: Impl;
  readonly transport: ChildTransport;
  /** For `unix`: where to listen. */
  readonly socketPath: string;
  /** Prints the one readiness line on stdout (listening servers only). */
  ready(info: { port?: number }): void;
  /** Resolves on SIGTERM/SIGINT. */
  readonly stopped: Promise<void>;
}

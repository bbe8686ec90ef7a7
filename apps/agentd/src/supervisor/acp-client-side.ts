/**
 * The client side agentd plays for an ACP agent: `session/update`, `session/request_permission`,
 * and the file-system and terminal methods (served inside the run's working directory, or refused
 * with a clear JSON-RPC error when the profile does not allow them).
 */
import type {
  ClientApp,
  ClientCapabilities,
  RequestPermissionRequest,
  RequestPermissionResponse,
} from '@agentclientprotocol/sdk/unstable';
import { client, RequestError } from '@agentclientprotocol/sdk/unstable';
import type { WorkspaceFiles } from './acp-files.js';
import type { Terminals } from './acp-terminals.js';

export interface ClientSideHooks {
  /** A `session/update`'s params, unparsed (the run reads them defensively). */
  onUpdate(params: unknown): void;
  /** Asks the run's permission broker. */
  requestPermission(
    params: RequestPermissionRequest,
    signal: AbortSignal,
  ): Promise<RequestPermissionResponse>;
  /** Refuses a request naming a session other than the run's. */
  checkSession(sessionId: unknown): void;
  /** Undefined when the profile does not allow file-system access. */
  files: WorkspaceFiles | undefined;
  /** Undefined when the profile does not allow terminals. */
  terminals: Terminals | undefined;
}

/** What agentd tells the agent it serves (in `initialize`). */
export function clientCapabilities(hooks: Pick<ClientSideHooks, 'files' | 'terminals'>): ClientCapabilities {
  const fs = hooks.files !== undefined;
  return { fs: { readTextFile: fs, writeTextFile: fs }, terminal: hooks.terminals !== undefined };
}

const REFUSED = -32001;

function notAllowed(what: string, setting: string): RequestError {
  return new RequestError(
    REFUSED,
    `agentd does not allow ${what} for this agent (the profile's ${setting} is not true)`,
  );
}

/** The params as sent: `session/update` is read defensively by the run, never thrown on. */
const raw = (params: unknown): unknown => params;

export function clientApp(hooks: ClientSideHooks): ClientApp {
  const files = (): WorkspaceFiles => {
    if (hooks.files === undefined) throw notAllowed('file-system access', 'allowFileSystem');
    return hooks.files;
  };
  const terminals = (): Terminals => {
    if (hooks.terminals === undefined) throw notAllowed('terminals', 'allowTerminal');
    return hooks.terminals;
  };
  return client({ name: 'agentd' })
    .onNotification('session/update', raw, ({ params }) => hooks.onUpdate(params))
    .onRequest('session/request_permission', ({ params, signal }) => {
      hooks.checkSession(params.sessionId);
      return hooks.requestPermission(params, signal);
    })
    .onRequest('fs/read_text_file', ({ params }) => {
      hooks.checkSession(params.sessionId);
      return files().read(params);
    })
    .onRequest('fs/write_text_file', ({ params }) => {
      hooks.checkSession(params.sessionId);
      return files().write(params);
    })
    .onRequest('terminal/create', ({ params }) => {
      hooks.checkSession(params.sessionId);
      return terminals().create(params);
    })
    .onRequest('terminal/output', ({ params }) => terminals().output(params.terminalId))
    .onRequest('terminal/wait_for_exit', ({ params, signal }) =>
      terminals().waitForExit(params.terminalId, signal),
    )
    .onRequest('terminal/kill', ({ params }) => {
      terminals().kill(params.terminalId);
      return {};
    })
    .onRequest('terminal/release', ({ params }) => {
      terminals().release(params.terminalId);
      return {};
    });
}

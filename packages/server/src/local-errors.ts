/** The server's local error catalogue: every code a LocalError thrown by @agentd/server carries. */
import { LocalError } from '@agentd/rpc-frame';

/**
 * - `invalid_options`: a ServerCore or InputBudget option is out of range (construction time).
 * - `duplicate_connection`: openConnection() with a connection id that is already open.
 * - `invalid_result`: a Handler resolved to something other than a JSON object (answered -32603).
 * - `cancelled`, `client_request_timeout`, `not_sent`, `disconnected`: why a legacy
 *   server-to-client request (`ctx.sendRequest`) got no answer from the client.
 */
export type ServerErrorCode =
  | 'invalid_options'
  | 'duplicate_connection'
  | 'invalid_result'
  | 'cancelled'
  | 'client_request_timeout'
  | 'not_sent'
  | 'disconnected';

export function serverError(
  code: ServerErrorCode,
  message: string,
  options?: { cause?: unknown },
): LocalError<ServerErrorCode> {
  return new LocalError<ServerErrorCode>(code, message, options);
}

/** The codes of the LocalErrors dispatch throws at registration and setup time (never sent to a peer). */
import { LocalError } from '@agentd/rpc-frame';

/**
 * - `invalid_option`: a constructor option (`Dispatcher`, tasks) is out of range or unknown.
 * - `invalid_definition`: a tool, operation, resource, template, prompt or completer definition is malformed.
 * - `invalid_name`: a tool, prompt or operation name outside the allowed character set.
 * - `invalid_schema`: a schema is not a usable JSON Schema (unsupported `$schema` dialect included).
 * - `invalid_uri_template`: an RFC 6570 template that does not parse.
 * - `duplicate`: a name, uri or template registered twice.
 * - `client_input_unavailable`: a handler asked for client input on a connection that cannot send requests.
 * - `task_limit`: a task store's `create` found the owner already holding the most tasks allowed.
 * - `missing_dependency`: a feature needs an optional peer package that is not installed (the message names it).
 * - `invalid_result`: a handler returned a value of the wrong shape (a tool, resource, prompt or app): a
 *   server bug, so it is logged and the client sees only a generic internal error.
 * - `invalid_call`: a Code Mode script called an operation it cannot (unknown or hidden, bad arguments, refused).
 * - `operation_failed`: an operation failed inside `execute` with an internal error (the details are logged).
 * - `task_aborted`: the abort reason of a task's signal (cancelled, expired, or the server shutting down).
 * - `no_response`: a `createTestClient` request got no response (cancelled or aborted).
 */
export type DispatchErrorCode =
  | 'invalid_option'
  | 'invalid_definition'
  | 'invalid_name'
  | 'invalid_schema'
  | 'invalid_uri_template'
  | 'duplicate'
  | 'client_input_unavailable'
  | 'task_limit'
  | 'missing_dependency'
  | 'invalid_result'
  | 'invalid_call'
  | 'operation_failed'
  | 'task_aborted'
  | 'no_response';

export function dispatchError(
  code: DispatchErrorCode,
  message: string,
  options?: { cause?: unknown },
): LocalError<DispatchErrorCode> {
  return new LocalError<DispatchErrorCode>(code, message, options);
}

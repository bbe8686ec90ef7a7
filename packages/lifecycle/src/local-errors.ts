/** The local (never on the wire) error codes of @agentd/lifecycle. */
import { LocalError } from '@agentd/rpc-frame';

export type LifecycleErrorCode = 'invalid_lifecycle_options';

export function lifecycleError(code: LifecycleErrorCode, message: string): LocalError<LifecycleErrorCode> {
  return new LocalError<LifecycleErrorCode>(code, message);
}

/** The local (never on the wire) error codes of @agentd/transport-http. */
import { LocalError } from '@agentd/rpc-frame';

export type TransportHttpErrorCode =
  /** An option (or the core's versions together with `legacy`) is not usable. */
  | 'invalid_options'
  /** `listen` on a non-loopback address without auth. */
  | 'insecure_bind'
  /** A request body passed `maxBodyBytes` (answered 413). */
  | 'body_too_large'
  /** The token verifier could not decide now (e.g. the JWKS is unreachable): answered 503, logged. */
  | 'verifier_unavailable';

export function httpError(code: TransportHttpErrorCode, message: string): LocalError<TransportHttpErrorCode> {
  return new LocalError<TransportHttpErrorCode>(code, message);
}

export function invalidOption(message: string): LocalError<TransportHttpErrorCode> {
  return httpError('invalid_options', message);
}

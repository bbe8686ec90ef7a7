/** Types of one `execute`: the request, the host-call bridge and the outcome. */
import type { OperationDescriptor, OperationKind } from './operation.js';
import type { SandboxLimits } from './sandbox-limits.js';

/** Every `error.code` an outcome can carry (see execution-codes.js for what each means). */
export type ExecuteErrorCodeValue =
  | 'syntax_error'
  | 'script_error'
  | 'operation_error'
  | 'cpu_deadline'
  | 'out_of_memory'
  | 'wall_clock'
  | 'too_many_calls'
  | 'aborted'
  | 'result_too_large'
  | 'code_too_large'
  | 'busy'
  | 'closed'
  | 'sandbox_error';

export interface CallContext {
  /** Aborted when the execution ends for any reason (finished, aborted, timed out) before the call does. */
  signal: AbortSignal;
}

/**
 * The single bridge to the host, invoked for every call the script makes (never cached or
 * short-circuited, so filters can be re-checked each time). Throw to fail the call: the script sees
 * an Error with the thrown error's message (and its string `code`, if any).
 */
export type OperationCall = (
  kind: OperationKind,
  id: string,
  args: unknown,
  context: CallContext,
) => Promise<unknown>;

export interface ExecuteRequest {
  /** An async function body (an async arrow or function expression is also accepted). */
  code: string;
  /** The guest global carrying the API, e.g. `agentd`. */
  namespace: string;
  /** Operations that get typed methods (pass those visible to the caller). */
  operations: readonly OperationDescriptor[];
  call: OperationCall;
  signal?: AbortSignal;
  /** Overrides of the runner's limits for this execution. */
  limits?: Partial<SandboxLimits>;
  /**
   * Who runs it, for fair scheduling: executions queue per principal, the principal that has used
   * the least CPU recently goes next, each under `maxRunningPerPrincipal`. Callers that share a
   * principal share its CPU account and cap. Default 'default'.
   */
  principal?: string;
  /** The priority lane (management callers): scheduled first, on workers restricted callers cannot fill. */
  priority?: boolean;
}

export type ExecuteOutcome =
  | {
      ok: true;
      /** The script's return value after a JSON round trip (`null` when it returned nothing). */
      value: unknown;
      /** Captured console lines (`[warn] …` etc. for levels other than log). */
      logs: string[];
      /** The value was cut to `maxResultBytes`; cuts are marked inside it. */
      truncated: boolean;
    }
  | { ok: false; error: { code: ExecuteErrorCodeValue; message: string }; logs: string[] };

/** Coded failure outcomes and the error text passed back into the guest. */
import type { ExecuteErrorCodeValue, ExecuteOutcome } from './execute-types.js';

export function failure(code: ExecuteErrorCodeValue, message: string, logs: string[] = []): ExecuteOutcome {
  return { ok: false, error: { code, message }, logs };
}

/** Longest error message passed back into the guest. */
const MAX_ERROR_CHARS = 4096;

export function errorMessage(thrown: unknown): string {
  const message =
    thrown instanceof Error ? thrown.message : typeof thrown === 'string' ? thrown : 'Operation failed';
  return message.length > MAX_ERROR_CHARS ? `${message.slice(0, MAX_ERROR_CHARS)}…` : message;
}

export function errorCode(thrown: unknown): string | undefined {
  const code = (thrown as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

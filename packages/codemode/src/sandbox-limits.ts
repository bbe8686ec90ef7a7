/** Execution limits: defaults (mirroring the origin where it has one) and validation. */
import { LocalError } from '@agentd/rpc-frame';
import { INITIAL_MEMORY_BYTES } from './execution-codes.js';
import type { CodeModeErrorCode } from './local-errors.js';

export interface SandboxLimits {
  /** Time spent running guest code (across awaits), enforced by QuickJS's interrupt handler. */
  cpuMs: number;
  /** Total time of an execution, queueing and host calls included. */
  wallMs: number;
  /** Hard cap on the sandbox's WebAssembly linear memory (QuickJS itself needs about 16 MiB of it). */
  memoryBytes: number;
  /** Operation calls per execution; one more ends the execution with `too_many_calls`. */
  maxCalls: number;
  /** UTF-8 bytes of one call's JSON arguments; larger calls fail like an operation error. */
  maxArgBytes: number;
  /** UTF-8 bytes of one call's JSON result; larger results fail like an operation error. */
  maxCallResultBytes: number;
  /** UTF-8 bytes of the script's JSON result; larger results are truncated structurally. */
  maxResultBytes: number;
  /** Captured console lines per execution (further lines are counted, not kept). */
  maxLogLines: number;
  /** Characters per captured console line. */
  maxLogLineBytes: number;
  /** Characters of script source. */
  maxCodeBytes: number;
}

export const DEFAULT_LIMITS: Readonly<SandboxLimits> = Object.freeze({
  cpuMs: 10_000,
  wallMs: 30_000,
  memoryBytes: 64 * 1024 * 1024,
  maxCalls: 1_000,
  maxArgBytes: 1024 * 1024,
  maxCallResultBytes: 4 * 1024 * 1024,
  maxResultBytes: 64 * 1024,
  maxLogLines: 200,
  maxLogLineBytes: 2_048,
  maxCodeBytes: 256 * 1024,
});

/** Smallest accepted values; below them the sandbox could not even start or report. */
const MINIMUMS: Readonly<SandboxLimits> = {
  cpuMs: 1,
  wallMs: 1,
  memoryBytes: INITIAL_MEMORY_BYTES + 8 * 1024 * 1024,
  maxCalls: 0,
  maxArgBytes: 2,
  maxCallResultBytes: 16,
  maxResultBytes: 256,
  maxLogLines: 0,
  maxLogLineBytes: 16,
  maxCodeBytes: 1,
};

/** WebAssembly memories are 32-bit here; stay well below 4 GiB. */
const MAX_MEMORY_BYTES = 2 * 1024 * 1024 * 1024;

/** Layers partial limits over the defaults (later wins) and rejects nonsense with `invalid_limits`. */
export function resolveLimits(...layers: (Partial<SandboxLimits> | undefined)[]): SandboxLimits {
  const limits: SandboxLimits = { ...DEFAULT_LIMITS };
  for (const layer of layers) {
    if (layer === undefined) continue;
    for (const key of Object.keys(layer) as (keyof SandboxLimits)[]) {
      const value = layer[key];
      if (value === undefined) continue;
      if (!(key in DEFAULT_LIMITS))
        throw new LocalError<CodeModeErrorCode>('invalid_limits', `Unknown sandbox limit: ${key}`);
      if (typeof value !== 'number' || !Number.isFinite(value) || value < MINIMUMS[key]) {
        throw new LocalError<CodeModeErrorCode>(
          'invalid_limits',
          `Sandbox limit ${key} must be a number >= ${MINIMUMS[key]}`,
        );
      }
      limits[key] = Math.floor(value);
    }
  }
  if (limits.memoryBytes > MAX_MEMORY_BYTES) {
    throw new LocalError<CodeModeErrorCode>(
      'invalid_limits',
      `Sandbox limit memoryBytes must be <= ${MAX_MEMORY_BYTES}`,
    );
  }
  return limits;
}

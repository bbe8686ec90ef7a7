/** Messages between the runner (main thread) and its sandbox workers; only plain data crosses. */
import type { OperationKind } from './operation.js';

/** Limits the worker enforces itself (the wall clock is also watched by the main thread). */
export interface WorkerLimits {
  cpuMs: number;
  memoryBytes: number;
  maxCalls: number;
  maxArgBytes: number;
  maxResultBytes: number;
  maxLogLines: number;
  maxLogLineBytes: number;
}

/** One typed method of the guest API: `namespace.path[0]...path[n]` calls `kind(id, args)`. */
export interface MethodEntry {
  path: string[];
  kind: OperationKind;
  id: string;
}

export interface RunMessage {
  type: 'run';
  execId: number;
  code: string;
  namespace: string;
  methods: MethodEntry[];
  limits: WorkerLimits;
  /** Milliseconds left on the wall clock when the message was sent. */
  wallMs: number;
  /**
   * Int32Array over a SharedArrayBuffer (EXEC_SLOTS, execution-codes.js): slot 0 holds a STOP_*
   * value, written by the runner; slot EXEC_CPU_MS the guest CPU ms used so far, by the worker.
   */
  stop: Int32Array;
}

interface ReplyMessage {
  type: 'reply';
  execId: number;
  callId: number;
  /** `{"value": …}` or `{"error": "…", "code"?: "…"}` as JSON text. */
  envelope: string;
}

interface StopMessage {
  type: 'stop';
  execId: number;
}

export type ToWorker = RunMessage | ReplyMessage | StopMessage;

export interface CallMessage {
  type: 'call';
  execId: number;
  callId: number;
  kind: OperationKind;
  id: string;
  args: string;
}

export type WorkerOutcome =
  | { ok: true; value: string; truncated: boolean; logs: string[] }
  | { ok: false; error: { code: string; message: string }; logs: string[] };

interface DoneMessage {
  type: 'done';
  execId: number;
  outcome: WorkerOutcome;
}

/** Every wake (run or reply) posted so far has been handled: nothing runs on the worker now. */
interface ParkedMessage {
  type: 'parked';
}

export type FromWorker = CallMessage | DoneMessage | ParkedMessage;

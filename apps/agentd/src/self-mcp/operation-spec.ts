/** agentd's own description of a self-MCP operation, independent of how dispatch exposes it. */
import type { OperationKind as AnyKind } from '@agentd/dispatch';
import type { JsonObject, LogLevel } from '@agentd/rpc-frame';
import type { Peer } from '@agentd/server';

/** agentd's operations only read (`query`) or act (`command`). */
type OperationKind = Extract<AnyKind, 'query' | 'command'>;

/** What a handler may use of the request: who asks, cancellation, and request-scoped notifications. */
export interface OperationContext {
  peer: Peer;
  signal: AbortSignal;
  /** `notifications/progress` when the caller sent a progressToken (no-op otherwise). */
  progress(progress: number, total?: number, message?: string): void;
  /** `notifications/message` when the caller asked for logs at this level (no-op otherwise). */
  log(level: LogLevel, data: unknown): void;
  /** `task` operations: answer with a task now and continue in it; undefined when the call stays normal. */
  detach(): Promise<TaskRef | undefined>;
  /**
   * How `elicit` reaches the client: `legacy` asks while the handler waits; `modern` (2026-07-28)
   * ends the call's round with `input_required` once the handler returns (undefined: legacy).
   */
  era?: 'legacy' | 'modern';
  /** The keys of the client's answers this call carries (2026-07-28 retries); none otherwise. */
  inputKeys?(): string[];
  /** Asks the client (elicitation); inside a task the answer comes through the task. */
  elicit(params: JsonObject, options?: { key?: string }): Promise<JsonObject>;
}

/** The task a call detached into: its id and the owner the task store binds it to. */
export interface TaskRef {
  taskId: string;
  owner: string;
}

export interface OperationSpec {
  kind: OperationKind;
  id: string;
  description: string;
  /** JSON Schema of the arguments (validated by dispatch before the handler runs). */
  args: JsonObject;
  /** TypeScript-ish name of the result, shown in Code Mode signatures. */
  outputType: string;
  /** Operator operations: only management peers may see or call them (enforced by ClientFilters). */
  operator: boolean;
  /** May answer with an MCP task (lifetime in ms) when the client takes tasks; see spawn-task.ts. */
  taskTtlMs?: number;
  handler: (args: JsonObject, context: OperationContext) => Promise<unknown>;
}

/** The `{kind}_{id}` name ClientFilters globs match against. */
export function filterName(spec: Pick<OperationSpec, 'kind' | 'id'>): string {
  return `${spec.kind}_${spec.id}`;
}

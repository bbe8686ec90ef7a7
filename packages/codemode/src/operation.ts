/** The operation model Code Mode exposes: myko-style queries, views, reports and commands. */
import type { JsonObject } from '@agentd/rpc-frame';

export type OperationKind = 'query' | 'view' | 'report' | 'command';

export const OPERATION_KINDS: readonly OperationKind[] = ['query', 'view', 'report', 'command'];

export interface OperationDescriptor {
  kind: OperationKind;
  /** Unique within its kind; dots make namespaces for typed methods (`subagent.spawn`). */
  id: string;
  description: string;
  /** JSON Schema of the argument object. */
  args: JsonObject;
  /** TypeScript type expression of the result, e.g. `SubagentStatus` or `Server[]`. */
  outputType: string;
}

export function isOperationKind(value: unknown): value is OperationKind {
  return typeof value === 'string' && (OPERATION_KINDS as readonly string[]).includes(value);
}

/** The operation model Code Mode exposes: queries, views, reports and commands. */
import type { JsonObject } from '@agentd/rpc-frame';
import { OPERATION_KINDS } from './operation-kinds.js';

export { OPERATION_KINDS };

export type OperationKind = (typeof OPERATION_KINDS)[number];

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

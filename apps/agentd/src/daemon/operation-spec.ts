/** agentd's own description of a self-MCP operation, independent of how dispatch exposes it. */
import type { JsonObject } from '@agentd/rpc-frame';
import type { Peer } from '@agentd/server';

export type OperationKind = 'query' | 'command';

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
  handler: (args: JsonObject, context: { peer: Peer; signal: AbortSignal }) => Promise<unknown>;
}

/** The `{kind}_{id}` name ClientFilters globs match against. */
export function filterName(spec: Pick<OperationSpec, 'kind' | 'id'>): string {
  return `${spec.kind}_${spec.id}`;
}

/** `search`: substring lookup over the operation index, with a TypeScript signature per match. */
import { LocalError } from '@agentd/rpc-frame';
import type { SchemaArg } from './json-schema-to-ts.js';
import { schemaArgs } from './json-schema-to-ts.js';
import type { CodeModeErrorCode } from './local-errors.js';
import { buildMethodTable } from './method-table.js';
import { checkNamespace, DEFAULT_NAMESPACE } from './namespace.js';
import type { OperationDescriptor, OperationKind } from './operation.js';
import { isOperationKind, OPERATION_KINDS } from './operation.js';
import { operationSignature } from './signature.js';
import type { MethodEntry } from './worker-protocol.js';

export interface SearchQuery {
  /** Case-insensitive; every whitespace-separated word must occur in the id or the description. */
  query?: string;
  /** One of `query`, `view`, `report`, `command`. */
  kind?: string;
}

export interface SearchOptions {
  /** Most entries returned (default 50); `truncated` says when more matched. */
  limit?: number;
  /** Namespace the signatures are written against (default `api`). */
  namespace?: string;
}

export interface SearchEntry {
  id: string;
  kind: OperationKind;
  description: string;
  args: SchemaArg[];
  outputType: string;
  /** TypeScript declaration of how to call it from `execute`. */
  signature: string;
}

export interface SearchResult {
  results: SearchEntry[];
  truncated: boolean;
  /** How many operations matched in all. */
  total: number;
}

const DEFAULT_SEARCH_LIMIT = 50;

const KIND_ORDER = new Map<string, number>(OPERATION_KINDS.map((kind, index) => [kind, index]));

function compare(a: OperationDescriptor, b: OperationDescriptor): number {
  const byKind = (KIND_ORDER.get(a.kind) ?? 9) - (KIND_ORDER.get(b.kind) ?? 9);
  if (byKind !== 0) return byKind;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/**
 * Matches operations (pass only those visible to the caller) and describes each match. Results
 * are sorted by kind then id. An unknown `kind` is an `invalid_kind` LocalError.
 */
export function searchOperations(
  operations: readonly OperationDescriptor[],
  query: SearchQuery = {},
  options: SearchOptions = {},
): SearchResult {
  const namespace = checkNamespace(options.namespace ?? DEFAULT_NAMESPACE);
  const limit = Math.max(0, Math.floor(options.limit ?? DEFAULT_SEARCH_LIMIT));
  const kind = query.kind;
  if (kind !== undefined && kind !== '' && !isOperationKind(kind)) {
    throw new LocalError<CodeModeErrorCode>(
      'invalid_kind',
      `kind must be one of ${OPERATION_KINDS.join(', ')} (got ${JSON.stringify(kind)})`,
    );
  }
  const words = typeof query.query === 'string' ? query.query.toLowerCase().split(/\s+/).filter(Boolean) : [];
  const matches = operations
    .filter((op) => kind === undefined || kind === '' || op.kind === kind)
    .filter((op) => {
      if (words.length === 0) return true;
      const id = op.id.toLowerCase();
      const description = (op.description ?? '').toLowerCase();
      return words.every((word) => id.includes(word) || description.includes(word));
    })
    .sort(compare);
  const shown = matches.slice(0, limit);
  const methods = new Map<string, MethodEntry>(
    buildMethodTable(operations).map((entry) => [`${entry.kind}\u0000${entry.id}`, entry]),
  );
  const results = shown.map((op) => ({
    id: op.id,
    kind: op.kind,
    description: op.description ?? '',
    args: schemaArgs(op.args),
    outputType: op.outputType || 'unknown',
    signature: operationSignature(op, namespace, methods.get(`${op.kind}\u0000${op.id}`)),
  }));
  return { results, truncated: matches.length > shown.length, total: matches.length };
}

/**
 * What the MCP Apps helpers register on: a Dispatcher, or a server built on one
 * (`McpServer`, `ContractServer`), so the object a newcomer holds works wherever a Dispatcher does.
 */
import type { Dispatcher } from './dispatcher.js';
import { dispatchError } from './local-errors.js';

export type DispatcherHost = Dispatcher | { readonly dispatcher: Dispatcher };

/** The Dispatcher behind `host`; anything else is a LocalError `invalid_option` naming `what`. */
export function dispatcherOf(host: DispatcherHost, what: string): Dispatcher {
  const candidate = host as unknown as Record<string, unknown> | null;
  if (typeof candidate === 'object' && candidate !== null) {
    const inner = candidate.dispatcher;
    if (isDispatcher(inner)) return inner;
    if (isDispatcher(candidate)) return candidate;
  }
  throw dispatchError('invalid_option', `${what} takes an McpServer or a Dispatcher as its first argument`);
}

// Duck-typed, not instanceof: two installed copies of this package must still work together.
function isDispatcher(value: unknown): value is Dispatcher {
  if (typeof value !== 'object' || value === null) return false;
  const methods = value as Record<string, unknown>;
  return (
    typeof methods.registerResource === 'function' &&
    typeof methods.registerTool === 'function' &&
    typeof methods.declareExtension === 'function' &&
    typeof methods.capabilities === 'function' &&
    typeof methods.registerProvider === 'function'
  );
}

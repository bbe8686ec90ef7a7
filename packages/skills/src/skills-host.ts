/**
 * Where skills are served: an McpServer (or any server built on a Dispatcher) or a Dispatcher.
 * Each Dispatcher gets one skills provider, registered through the MethodProvider seam on the
 * first skill or folder; every later registration on it reuses that provider and its registry.
 */
import type { Dispatcher } from '@agentd/dispatch';
import { skillsError } from './local-errors.js';
import { SkillsProvider } from './skills-provider.js';

/** An McpServer (anything holding its `dispatcher`) or a Dispatcher. */
export type SkillsHost = Dispatcher | { readonly dispatcher: Dispatcher };

const providers = new WeakMap<Dispatcher, SkillsProvider>();

/** The skills provider of `host`'s Dispatcher (its registry, its host), registered on first use. */
export function skillsOf(host: SkillsHost, what: string): SkillsProvider {
  const dispatcher = dispatcherOf(host, what);
  let provider = providers.get(dispatcher);
  if (provider === undefined) {
    provider = new SkillsProvider(dispatcher);
    dispatcher.registerProvider(provider);
    providers.set(dispatcher, provider);
  }
  return provider;
}

function dispatcherOf(host: SkillsHost, what: string): Dispatcher {
  const candidate = host as unknown as Record<string, unknown> | null;
  if (typeof candidate === 'object' && candidate !== null) {
    if (isDispatcher(candidate.dispatcher)) return candidate.dispatcher;
    if (isDispatcher(candidate)) return candidate;
  }
  throw skillsError('invalid_option', `${what} takes an McpServer or a Dispatcher as its first argument`);
}

// Duck-typed, not instanceof: the application's copy of @agentd/dispatch may not be this package's.
function isDispatcher(value: unknown): value is Dispatcher {
  if (typeof value !== 'object' || value === null) return false;
  const methods = value as Record<string, unknown>;
  return ['registerProvider', 'declareExtension', 'registerResource', 'hasResource'].every(
    (name) => typeof methods[name] === 'function',
  );
}

/**
 * The OpenTelemetry API, loaded only once something registered with it (an SDK, a propagator, a
 * context manager): a server nobody observes neither loads the api's modules at startup nor pays
 * for no-op spans per request. Registrations go through the api's global registry, which every
 * copy of the api shares, so the copy loaded here sees what the application registered.
 */

import { runtimeRequire } from '@agentd/rpc-frame';
import type * as Api from '@opentelemetry/api';

export type OpenTelemetryApi = typeof Api;

// The registry key of @opentelemetry/api 1.x (the major version this package depends on).
const REGISTRY = Symbol.for('opentelemetry.js.api.1');

const requireApi = runtimeRequire(import.meta.url);
// Without a synchronous require (workerd, browsers) the api is imported with the server, as before.
const imported: OpenTelemetryApi | undefined =
  requireApi === undefined ? await import('@opentelemetry/api') : undefined;
let required: OpenTelemetryApi | undefined;

/** The api when anything is registered with it, else undefined (nothing to record or propagate). */
export function openTelemetry(): OpenTelemetryApi | undefined {
  if (imported !== undefined) return imported;
  if (required !== undefined) return required;
  if ((globalThis as Record<symbol, unknown>)[REGISTRY] === undefined) return undefined;
  required = (requireApi as (specifier: string) => OpenTelemetryApi)('@opentelemetry/api');
  return required;
}

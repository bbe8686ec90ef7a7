/** Lifecycle configuration: which versions (and therefore eras) a server speaks. */
import { lifecycleError } from './local-errors.js';
import { eraOfVersion, SUPPORTED_VERSIONS } from './versions.js';

export interface LifecycleOptions {
  /** The versions this server speaks; any subset of SUPPORTED_VERSIONS. Default: all of them. */
  versions?: readonly string[];
  /** Returned by `initialize` and `server/discover`. */
  instructions?: string;
  /** Cache lifetime of the `server/discover` result. Default 60 000 ms. */
  ttlMs?: number;
  /** Cache scope of the `server/discover` result. Default `public`. */
  cacheScope?: 'public' | 'private';
}

/** LifecycleOptions checked and ordered once. */
export interface ResolvedLifecycle {
  /** Newest first, as configured. */
  readonly supported: readonly string[];
  readonly speaksModern: boolean;
  readonly speaksLegacy: boolean;
  /** The counter-offer for an `initialize` naming a version we do not speak. */
  readonly newestLegacy: string | undefined;
  readonly instructions: string | undefined;
  readonly ttlMs: number;
  readonly cacheScope: 'public' | 'private';
}

const DEFAULT_DISCOVER_TTL_MS = 60_000;

const cache = new WeakMap<LifecycleOptions, ResolvedLifecycle>();

/** Validates the options (throws LocalError `invalid_lifecycle_options`); memoised per options object. */
export function resolveLifecycle(options: LifecycleOptions = {}): ResolvedLifecycle {
  const cached = cache.get(options);
  if (cached !== undefined) return cached;
  const resolved = build(options);
  cache.set(options, resolved);
  return resolved;
}

function build(options: LifecycleOptions): ResolvedLifecycle {
  const wanted = options.versions ?? SUPPORTED_VERSIONS;
  const unknown = wanted.filter((v) => eraOfVersion(v) === undefined);
  if (unknown.length > 0) {
    throw lifecycleError(
      'invalid_lifecycle_options',
      `unsupported protocol version(s) ${unknown.join(', ')}; known: ${SUPPORTED_VERSIONS.join(', ')}`,
    );
  }
  // Keep the framework's newest-first order whatever order the caller used.
  const supported = SUPPORTED_VERSIONS.filter((v) => wanted.includes(v));
  if (supported.length === 0) {
    throw lifecycleError('invalid_lifecycle_options', 'at least one protocol version must be enabled');
  }
  const ttlMs = options.ttlMs ?? DEFAULT_DISCOVER_TTL_MS;
  if (!Number.isSafeInteger(ttlMs) || ttlMs < 0) {
    throw lifecycleError('invalid_lifecycle_options', `ttlMs must be a non-negative integer, got ${ttlMs}`);
  }
  const legacy = supported.filter((v) => eraOfVersion(v) === 'legacy');
  return Object.freeze({
    supported: Object.freeze(supported),
    speaksModern: supported.some((v) => eraOfVersion(v) === 'modern'),
    speaksLegacy: legacy.length > 0,
    newestLegacy: legacy[0],
    instructions: options.instructions,
    ttlMs,
    cacheScope: options.cacheScope ?? 'public',
  });
}

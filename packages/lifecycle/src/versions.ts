/** The protocol versions this framework speaks, and the one place that maps a version to its era. */

export type Era = 'legacy' | 'modern';

/** The stateless revision (per-request `_meta`, no handshake). */
export const MODERN_VERSION = '2026-07-28';

/** The handshake revisions, newest first. */
export const LEGACY_VERSIONS: readonly string[] = Object.freeze([
  '2025-11-25',
  '2025-06-18',
  '2025-03-26',
  '2024-11-05',
]);

/** Every version, newest first. */
export const SUPPORTED_VERSIONS: readonly string[] = Object.freeze([MODERN_VERSION, ...LEGACY_VERSIONS]);

const MODERN_VERSIONS: ReadonlySet<string> = new Set([MODERN_VERSION]);
const LEGACY_SET: ReadonlySet<string> = new Set(LEGACY_VERSIONS);

/** The era of a known version; undefined for anything this framework does not implement. */
export function eraOfVersion(version: string): Era | undefined {
  if (MODERN_VERSIONS.has(version)) return 'modern';
  if (LEGACY_SET.has(version)) return 'legacy';
  return undefined;
}

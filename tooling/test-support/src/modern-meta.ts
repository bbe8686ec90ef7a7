/** The `_meta` envelope a 2026-07-28 (modern) test request carries, built from lifecycle's keys. */
import { MetaKey, MODERN_VERSION } from '@agentd/lifecycle';

export const TEST_CLIENT_INFO = { name: 'test-client', version: '1.0.0' };

export const MODERN_META: Record<string, unknown> = {
  [MetaKey.protocolVersion]: MODERN_VERSION,
  [MetaKey.clientCapabilities]: {},
  [MetaKey.clientInfo]: TEST_CLIENT_INFO,
};

/** MODERN_META with `extra` keys on top (a different version, capabilities, a log level, …). */
export function modernMeta(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { ...MODERN_META, ...extra };
}

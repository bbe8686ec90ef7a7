/** Which era a POST belongs to: modern `_meta` or a modern version header; never `Mcp-Method` alone. */

import { eraOfVersion, requestEra } from '@agentd/lifecycle';
import type { HeaderReader } from './http-io.js';

export function isModernPost(message: { params?: unknown }, headers: HeaderReader): boolean {
  if (requestEra(message) === 'modern') return true;
  const header = headers.get('mcp-protocol-version');
  return header !== null && eraOfVersion(header) === 'modern';
}

/** Which era a POST belongs to: modern `_meta` or a modern version header; never `Mcp-Method` alone. */
import type { IncomingHttpHeaders } from 'node:http';
import { eraOfVersion, requestEra } from '@agentd/lifecycle';

export function isModernPost(message: { params?: unknown }, headers: IncomingHttpHeaders): boolean {
  if (requestEra(message) === 'modern') return true;
  const header = headers['mcp-protocol-version'];
  return typeof header === 'string' && eraOfVersion(header) === 'modern';
}

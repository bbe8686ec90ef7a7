/** Answers the lifecycle methods (initialize, server/discover, ping) of both eras in one place. */
import {
  errorResponse,
  isJsonObject,
  type JsonObject,
  type JsonRpcRequest,
  type JsonRpcResponse,
  successResponse,
  WireError,
} from '@agentd/rpc-frame';
import { classifyRequest, isRefused, type RequestClass } from './classify-request.js';
import { type LifecycleOptions, type ResolvedLifecycle, resolveLifecycle } from './lifecycle-options.js';
import { modernResult } from './modern-result.js';
import type { Implementation, ServerCapabilities } from './protocol-types.js';
import { type Refusal, refuse } from './refusals.js';
import { capabilitiesForEra } from './tasks-extension.js';
import { eraOfVersion, MODERN_VERSION } from './versions.js';

/**
 * Returns the response for `initialize`, `server/discover` and `ping`, and for every request
 * `classifyRequest` refuses. Returns undefined for a domain method that should be routed.
 * `classified` is the request's classification when the caller already has it (it is not redone).
 */
export function lifecycleResponse(
  request: JsonRpcRequest,
  serverInfo: Implementation,
  /** The server's capabilities, or how to get them: a function is only called for the requests that show them. */
  capabilities: ServerCapabilities | (() => ServerCapabilities),
  options?: LifecycleOptions,
  classified: RequestClass | Refusal = classifyRequest(request, options),
): JsonRpcResponse | undefined {
  if (isRefused(classified)) return errorResponse(request.id, classified.toJSON());
  const resolved = resolveLifecycle(options);
  try {
    if (classified.era === 'legacy') return legacyResponse(request, serverInfo, capabilities, resolved);
    return request.method === 'server/discover'
      ? discoverResponse(request, serverInfo, capabilitiesOf(capabilities), resolved)
      : undefined;
  } catch (thrown) {
    if (thrown instanceof WireError) return errorResponse(request.id, thrown.toJSON());
    throw thrown;
  }
}

function capabilitiesOf(capabilities: ServerCapabilities | (() => ServerCapabilities)): ServerCapabilities {
  return typeof capabilities === 'function' ? capabilities() : capabilities;
}

function legacyResponse(
  request: JsonRpcRequest,
  serverInfo: Implementation,
  capabilities: ServerCapabilities | (() => ServerCapabilities),
  resolved: ResolvedLifecycle,
): JsonRpcResponse | undefined {
  if (request.method === 'ping') return successResponse(request.id, {});
  if (request.method !== 'initialize') return undefined;
  const params = request.params ?? {};
  const requested = params.protocolVersion;
  if (typeof requested !== 'string') throw refuse.initializeMissingVersion();
  if (params.capabilities !== undefined && !isJsonObject(params.capabilities)) {
    throw refuse.initializeBadCapabilities();
  }
  const protocolVersion = negotiateLegacyVersion(requested, resolved);
  const result: JsonObject = {
    protocolVersion,
    capabilities: capabilitiesForEra(capabilitiesOf(capabilities), 'legacy', protocolVersion) as JsonObject,
    serverInfo: serverInfo as unknown as JsonObject,
  };
  if (resolved.instructions !== undefined) result.instructions = resolved.instructions;
  return successResponse(request.id, result);
}

/** Echo a legacy version we speak; otherwise counter-offer our newest legacy one (MCP lifecycle rule). */
function negotiateLegacyVersion(requested: string, resolved: ResolvedLifecycle): string {
  if (eraOfVersion(requested) === 'legacy' && resolved.supported.includes(requested)) return requested;
  // servedEra only routes here when some legacy version is enabled.
  return resolved.newestLegacy as string;
}

function discoverResponse(
  request: JsonRpcRequest,
  serverInfo: Implementation,
  capabilities: ServerCapabilities,
  resolved: ResolvedLifecycle,
): JsonRpcResponse {
  const result: JsonObject = {
    supportedVersions: [...resolved.supported],
    capabilities: capabilitiesForEra(capabilities, 'modern', MODERN_VERSION) as JsonObject,
    ttlMs: resolved.ttlMs,
    cacheScope: resolved.cacheScope,
  };
  if (resolved.instructions !== undefined) result.instructions = resolved.instructions;
  return successResponse(request.id, modernResult(result, serverInfo));
}

/** RFC 9728 Protected Resource Metadata and the `WWW-Authenticate` challenges that point at it. */
import type { OAuthResourceOptions } from './oauth-options.js';

const WELL_KNOWN = '/.well-known/oauth-protected-resource';

/** The resource URI: configured, or the request's origin plus the endpoint path. */
export function resourceOf(oauth: OAuthResourceOptions, requestUrl: string, endpointPath: string): string {
  if (oauth.resource !== undefined) return oauth.resource;
  return new URL(endpointPath, requestUrl).href;
}

/** Where the metadata of `resource` lives: the well-known prefix inserted before its path (RFC 9728 §3.1). */
export function metadataUrlOf(resource: string): string {
  const url = new URL(resource);
  const path = url.pathname === '/' ? '' : url.pathname.replace(/\/+$/, '');
  return `${url.origin}${WELL_KNOWN}${path}`;
}

/** True for the metadata paths this endpoint answers: the bare well-known path and the path-suffixed form. */
export function isMetadataPath(path: string, endpointPath: string): boolean {
  return path === WELL_KNOWN || path === `${WELL_KNOWN}${endpointPath}`;
}

export function metadataDocument(oauth: OAuthResourceOptions, resource: string): Record<string, unknown> {
  const scopes = oauth.scopesSupported ?? oauth.requiredScopes;
  return {
    resource,
    authorization_servers: [...oauth.authorizationServers],
    bearer_methods_supported: ['header'],
    ...(scopes === undefined || scopes.length === 0 ? {} : { scopes_supported: [...scopes] }),
    ...(oauth.resourceName === undefined ? {} : { resource_name: oauth.resourceName }),
    ...(oauth.resourceDocumentation === undefined
      ? {}
      : { resource_documentation: oauth.resourceDocumentation }),
  };
}

function quoted(value: string): string {
  return `"${value.replace(/["\\]/g, '\\$&')}"`;
}

/** `Bearer resource_metadata="…"` plus an RFC 6750 error when a token was presented. */
export function bearerChallenge(fields: {
  resourceMetadata?: string | undefined;
  error?: 'invalid_token' | 'insufficient_scope' | undefined;
  description?: string | undefined;
  scope?: readonly string[] | undefined;
}): string {
  const parts: string[] = [];
  if (fields.error !== undefined) parts.push(`error=${quoted(fields.error)}`);
  if (fields.description !== undefined) parts.push(`error_description=${quoted(fields.description)}`);
  if (fields.scope !== undefined && fields.scope.length > 0)
    parts.push(`scope=${quoted(fields.scope.join(' '))}`);
  if (fields.resourceMetadata !== undefined)
    parts.push(`resource_metadata=${quoted(fields.resourceMetadata)}`);
  return parts.length === 0 ? 'Bearer' : `Bearer ${parts.join(', ')}`;
}

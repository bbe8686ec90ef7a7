/** The redacted view served as agent://config/effective: structure and names, never secrets. */
import type { JsonObject } from '@agentd/rpc-frame';
import type { AgentdConfig } from './config-schema.js';

const REDACTED = '[redacted]';

export function redactConfig(config: AgentdConfig): JsonObject {
  const agents: JsonObject = {};
  for (const [name, profile] of Object.entries(config.agents)) {
    const env =
      profile.env === undefined
        ? undefined
        : Object.fromEntries(Object.keys(profile.env).map((k) => [k, REDACTED]));
    agents[name] = env === undefined ? { ...profile } : { ...profile, env };
  }
  const redacted: JsonObject = {
    ...config,
    auth: {
      bearerTokens: config.auth.bearerTokens.map((t) => ({ name: t.name, token: REDACTED })),
      // OAuth settings are public facts (issuer, audience, JWKS URL), not secrets.
      ...(config.auth.oauth === undefined ? {} : { oauth: { ...config.auth.oauth } }),
      operationScopes: config.auth.operationScopes,
    },
    agents,
    ...(config.cluster === undefined
      ? {}
      : { cluster: { ...config.cluster, redisUrl: redactUrl(config.cluster.redisUrl) } }),
  };
  return JSON.parse(JSON.stringify(redacted)) as JsonObject;
}

/** A Redis URL with its password (if any) replaced: the host and database stay visible. */
function redactUrl(text: string): string {
  try {
    const url = new URL(text);
    if (url.password === '') return text;
    return `${url.protocol}//${url.username}:${REDACTED}@${url.host}${url.pathname === '/' ? '' : url.pathname}`;
  } catch {
    return REDACTED;
  }
}

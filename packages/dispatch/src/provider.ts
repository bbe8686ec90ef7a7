/**
 * @agentd/dispatch/provider: what an extension written against the MethodProvider seam needs (as
 * `@agentd/skills` is). A provider is registered with `dispatcher.registerProvider(provider)` or
 * `new McpServer(info, { providers })`; its `attach(host)` receives the `ProviderHost`: extension
 * settings, the Dispatcher's logger, the peer's resource visibility, cursor paging and cache hints.
 * This file is the subpath's public API.
 * `@public` tags the names no code in this repository imports: they are for users (knip keeps them).
 */
/** @public */
export type { MethodProvider, ProvidedCapabilities, ProviderHost } from './method-provider.js';
/** SHA-256 on every runtime, synchronously: `sha256(bytes, 'hex' | 'base64url')`. */
export { sha256 } from './sha256.js';

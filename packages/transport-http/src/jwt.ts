/**
 * @agentd/transport-http/jwt: a JWT/JWKS access-token verifier for the OAuth resource server
 * (on `jose`, runtime-neutral). This file is the subpath's public API.
 */
export { createJwtVerifier, /** @public */ type JwtVerifierOptions } from './jwt-verifier.js';

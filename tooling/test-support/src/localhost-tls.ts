/** A self-signed certificate for `localhost` and its key, as file paths, for HTTPS tests on loopback. */
import { fileURLToPath } from 'node:url';

export const LOCALHOST_TLS = {
  cert: fileURLToPath(new URL('../fixtures/localhost-cert.pem', import.meta.url)),
  key: fileURLToPath(new URL('../fixtures/localhost-key.pem', import.meta.url)),
} as const;

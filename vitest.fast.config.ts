/**
 * The fast lane, `pnpm test:fast`: the whole suite of vitest.config.ts minus the heavy suites
 * listed here, for quick feedback while editing. `npm test` (and plain `vitest run`) still runs
 * everything. This list is the one place a suite is tagged heavy: it listens on or dials sockets
 * (unix, TCP, HTTP, the vsock stand-in), spawns processes (the daemon, child servers, npm, tsc),
 * or starts worker pools. A new suite like that goes on this list.
 */
import { configDefaults, defineConfig, mergeConfig } from 'vitest/config';
import full from './vitest.config.js';

const HEAVY_SUITES = [
  // End to end and tooling: whole processes, packed tarballs, conformance fixtures, benches, redis/nginx,
  // the examples' verify scripts.
  'apps/agentd/test/**',
  // The soak (a few minutes: 250,000 calls per transport against real daemons).
  'apps/agentd/test/soak.test.ts',
  'apps/conformance-server/**',
  'tooling/scripts/**',
  'tooling/bench/**',
  'tooling/cluster-harness/**',
  'examples/**',
  // agentd: real agent processes and the metrics HTTP listener.
  'apps/agentd/src/supervisor/**/*.test.ts',
  'apps/agentd/src/metrics/metrics-server.test.ts',
  // agentd cluster: a real redis-server.
  'apps/agentd/src/cluster/**/*.test.ts',
  // Socket transports: every suite binds or dials real sockets.
  'packages/transport-unix/**',
  'packages/transport-vsock/**',
  // redis: a real redis-server per suite.
  'packages/redis/**',
  // server: the connection loop, accept loop and both eras over real unix sockets and stdio children.
  'packages/server/src/core-legacy.test.ts',
  'packages/server/src/core-modern.test.ts',
  'packages/server/src/official-clients.test.ts',
  'packages/server/src/serve-connection*.test.ts',
  'packages/server/src/serve-listener.test.ts',
  'packages/server/src/serve-stdio.test.ts',
  'packages/server/src/telemetry*.test.ts',
  'packages/server/src/readme-otel.test.ts',
  // transport-http: suites on a listening HTTP server (the in-process fetch-handler suites stay).
  'packages/transport-http/src/accept-http.test.ts',
  'packages/transport-http/src/cancel-official-clients.test.ts',
  'packages/transport-http/src/connection-close-413.test.ts',
  'packages/transport-http/src/drain-body.test.ts',
  'packages/transport-http/src/http-rules.test.ts',
  'packages/transport-http/src/internal-errors.test.ts',
  'packages/transport-http/src/legacy-http.test.ts',
  'packages/transport-http/src/load.test.ts',
  'packages/transport-http/src/modern-http.test.ts',
  'packages/transport-http/src/mounting.test.ts',
  'packages/transport-http/src/oauth-resource-server.test.ts',
  'packages/transport-http/src/peer-identity.test.ts',
  'packages/transport-http/src/readme-example.test.ts',
  'packages/transport-http/src/resumable-sse.test.ts',
  'packages/transport-http/src/session-rules.test.ts',
  'packages/transport-http/src/scope-step-up.test.ts',
  'packages/transport-http/src/shared-core.test.ts',
  // dispatch: the core over unix sockets, and tsc run on generated schemas.
  'packages/dispatch/src/server-core.integration.test.ts',
  'packages/dispatch/src/tasks-*.test.ts',
  'packages/dispatch/src/schema-validation-auto.test.ts',
  'packages/dispatch/src/scopes-code-mode.test.ts',
  // dispatch: MCP Apps in a real headless Chromium.
  'packages/dispatch/src/mcp-apps.browser.test.ts',
  // dispatch: skills over a unix socket with the official client; a watched skills folder.
  'packages/dispatch/src/skills-extension.test.ts',
  'packages/dispatch/src/skills-folder.test.ts',
  // codemode: QuickJS worker pools and child processes.
  'packages/codemode/src/code-mode-runner.test.ts',
  'packages/codemode/src/fairness.test.ts',
  'packages/codemode/src/guest-prelude.test.ts',
  'packages/codemode/src/quickjs-execution.test.ts',
  'packages/codemode/src/wasm-module.test.ts',
  'packages/codemode/src/worker-slot.test.ts',
  'packages/codemode/src/call-telemetry.test.ts',
];

export default mergeConfig(
  full,
  defineConfig({ test: { exclude: [...configDefaults.exclude, ...HEAVY_SUITES] } }),
);

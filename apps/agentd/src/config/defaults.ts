/** Embedded defaults: what `agentd` does with no config file, no environment and no flags. */
import { HISTORY_DEFAULTS } from '../history/history-config.js';
import { exampleAgentProfile } from '../supervisor/index.js';
import type { AgentdConfig } from './config-schema.js';
import { defaultSocketPath } from './runtime-dir.js';

/** Loopback HTTP port used when no serve target is configured (unassigned by IANA, rarely taken). */
export const DEFAULT_HTTP_PORT = 4387;

const BUILTIN_AGENT = 'example';

/** OAuth tokens need `agentd:operator` for the operator operations (the ones stdio peers never get). */
export const DEFAULT_OPERATION_SCOPES: Readonly<Record<string, string[]>> = Object.freeze({
  command_drain: ['agentd:operator'],
  'command_lame-duck': ['agentd:operator'],
  command_pause: ['agentd:operator'],
  command_resume: ['agentd:operator'],
  command_reload: ['agentd:operator'],
  command_cancel: ['agentd:operator'],
  'command_workspace.prune': ['agentd:operator'],
});

/** `serveDefaults` is false for `agentd stdio`, which must not grab the shared socket or port. */
export function defaultConfig(options: { serveDefaults: boolean; env?: NodeJS.ProcessEnv }): AgentdConfig {
  const { name: _name, ...example } = exampleAgentProfile(BUILTIN_AGENT);
  return {
    serve: options.serveDefaults
      ? [`unix:${defaultSocketPath(options.env)}`, `http://127.0.0.1:${DEFAULT_HTTP_PORT}`]
      : [],
    auth: { bearerTokens: [], operationScopes: { ...DEFAULT_OPERATION_SCOPES } },
    http: { allowedHosts: [], allowedOrigins: [] },
    exposure: 'codemode',
    codeModeWallMs: 600_000,
    codeMode: {},
    connections: {
      highWaterBytes: 1024 * 1024,
      maxBufferedBytes: 16 * 1024 * 1024,
      writeTimeoutMs: 30_000,
      maxBufferedInputBytes: 64 * 1024 * 1024,
      halfCloseDrainMs: 0,
    },
    logLevel: 'info',
    eventsRing: 1024,
    drainTimeoutMs: 25_000,
    watch: true,
    history: { enabled: true, ...HISTORY_DEFAULTS },
    defaultAgent: BUILTIN_AGENT,
    agents: {
      [BUILTIN_AGENT]: example,
    },
    limits: {
      maxConcurrentRuns: 4,
      maxWarmSessions: 8,
      maxTrackedHandles: 64,
      maxOutputBytes: 1_048_576,
      defaultTimeoutMs: 600_000,
      reservedRuns: 1,
      reservedWarmSessions: 1,
      restrictedRunsPerPrincipal: 2,
      restrictedWarmSessionsPerPrincipal: 2,
      restrictedMaxTimeoutMs: 3_600_000,
    },
  };
}

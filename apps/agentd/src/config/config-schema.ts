/** The JSON Schema of agentd's config file: the single source of truth for `config schema` and validation. */
import type { JsonObject, LogLevel } from '@agentd/rpc-frame';
import { HISTORY_SCHEMA, type HistoryConfig } from '../history/history-config.js';
import { LOG_LEVEL_SPELLINGS } from '../log/log-level.js';
import type { AgentProfile } from '../supervisor/types.js';
import { WORKSPACE_SCHEMA } from '../workspace/workspace-config.js';
import { CLUSTER_SCHEMA, type ClusterConfig } from './cluster-config.js';
import { TELEMETRY_SCHEMA, type TelemetryConfig } from './telemetry-config.js';

export type Exposure = 'codemode' | 'classic';

/**
 * A profile as written in the config file: the Supervisor's profile, named by its key. A `claude`
 * profile may leave `command` out: the Supervisor's profile check fills in `claude`.
 */
type AgentProfileConfig = Omit<AgentProfile, 'name'>;

interface LimitsConfig {
  maxConcurrentRuns: number;
  maxWarmSessions: number;
  maxTrackedHandles: number;
  maxOutputBytes: number;
  defaultTimeoutMs: number;
  /** The fair share of restricted peers (stdio, anonymous HTTP); see the Supervisor's limits. */
  reservedRuns?: number;
  reservedWarmSessions?: number;
  restrictedRunsPerPrincipal?: number;
  restrictedWarmSessionsPerPrincipal?: number;
  restrictedMaxTimeoutMs?: number;
}

/** Sandbox limits of Code Mode's `execute` (see @agentd/codemode); unset keys keep the sandbox defaults. */
export interface CodeModeLimitsConfig {
  cpuMs?: number;
  memoryBytes?: number;
  maxCalls?: number;
  maxResultBytes?: number;
  maxLogLines?: number;
  /** Fair scheduling across callers (see @agentd/codemode's CodeModeRunner). */
  maxRunningPerPrincipal?: number;
  maxQueuedPerPrincipal?: number;
  maxQueueWaitMs?: number;
  priorityWorkers?: number;
}

/** Per-connection and server-wide limits of the NDJSON transports (unix, vsock, stdio); see @agentd/server. */
interface ConnectionLimitsConfig {
  highWaterBytes: number;
  maxBufferedBytes: number;
  writeTimeoutMs: number;
  maxBufferedInputBytes: number;
  halfCloseDrainMs: number;
}

interface BearerTokenConfig {
  name: string;
  token: string;
}

/** OAuth 2.1 resource server: JWT access tokens from `issuer`, checked against its JWKS. */
interface OAuthConfig {
  issuer: string;
  /** This server's resource URI (RFC 8707): tokens must be issued for it. */
  audience: string;
  jwksUri: string;
  requiredScopes?: string[];
  /** Step-up: a call of an operation hidden only by its scopes answers 403 `insufficient_scope` (classic exposure). */
  stepUp?: boolean;
}

/** The fully resolved configuration (every layer merged, every default filled). */
export interface AgentdConfig {
  serve: string[];
  auth: {
    bearerTokens: BearerTokenConfig[];
    oauth?: OAuthConfig;
    /** Scopes an OAuth token needs per operation (`{kind}_{id}`); static tokens, unix and vsock peers are exempt. */
    operationScopes: Record<string, string[]>;
  };
  tls?: { cert: string; key: string };
  http: { allowedHosts: string[]; allowedOrigins: string[] };
  exposure: Exposure;
  codeModeWallMs: number;
  codeMode: CodeModeLimitsConfig;
  connections: ConnectionLimitsConfig;
  logLevel: LogLevel;
  eventsRing: number;
  drainTimeoutMs: number;
  watch: boolean;
  /** Prometheus endpoint, `http://127.0.0.1:PORT[/PATH]`; none when unset. */
  metrics?: string;
  /** Replicas sharing runs through Redis; none when agentd runs alone. */
  cluster?: ClusterConfig;
  /** OpenTelemetry export (OTLP/HTTP); the SDK is loaded only when it is on. */
  telemetry?: TelemetryConfig;
  /** Where run history and workspaces live; default `$XDG_STATE_HOME/agentd`, else `~/.local/state/agentd`. */
  stateDir?: string;
  /** The embedded run store's bounds (and whether it is on). */
  history: HistoryConfig;
  defaultAgent: string;
  agents: Record<string, AgentProfileConfig>;
  limits: LimitsConfig;
}

const positiveInt = (description: string, maximum?: number): JsonObject =>
  maximum === undefined
    ? { type: 'integer', minimum: 1, description }
    : { type: 'integer', minimum: 1, maximum, description };

const permissionPatterns = (description: string): JsonObject => ({
  type: 'array',
  items: { type: 'string', minLength: 1, pattern: '^[^()\\s]+(\\(.*\\))?$' },
  description,
});

const permissionsSchema: JsonObject = {
  type: 'object',
  additionalProperties: false,
  description:
    "claude/acp: how the agent's permission requests are answered before anyone is asked. Patterns: '*', a tool kind ('read', 'edit', 'execute', 'search', 'fetch', …), a tool name ('Read', 'mcp__github__*'), either with an input glob in parentheses ('Bash(git *)').",
  properties: {
    allow: permissionPatterns(
      'Requests matching one of these are allowed (unless a deny pattern matches too).',
    ),
    deny: permissionPatterns('Requests matching one of these are denied; deny wins over allow.'),
    default: {
      enum: ['ask', 'deny', 'allow'],
      description:
        "What a request no pattern matches gets: 'ask' (a pending decision the caller or an operator answers; default), 'deny' or 'allow'.",
    },
    timeoutMs: positiveInt(
      'How long an asked request waits for an answer before it is denied (default 300000).',
      2_147_483_647,
    ),
  },
};

const budgetSchema: JsonObject = {
  type: 'object',
  additionalProperties: false,
  description:
    "Stops a run that spends more: it ends 'failed' with code budget_exceeded and the usage at that moment.",
  properties: {
    maxCostUsd: {
      type: 'number',
      exclusiveMinimum: 0,
      description: 'Largest cost of one run in US dollars.',
    },
    maxTokens: positiveInt('Largest number of tokens (input, output and cache together) of one run.'),
  },
};

const agentProfileSchema: JsonObject = {
  type: 'object',
  additionalProperties: false,
  required: ['mode'],
  // Only Claude Code has a default executable.
  if: { properties: { mode: { const: 'claude' } } },
  else: { required: ['command'], properties: { command: { type: 'string' } } },
  properties: {
    mode: {
      enum: ['protocol', 'plain', 'claude', 'acp'],
      description:
        "'protocol': NDJSON JSON-RPC agent protocol on the child's stdio; 'plain': instruction on stdin, stdout is the result; 'claude': Claude Code over its stream-json control protocol (a conversation with permission prompts, usage and cost); 'acp': an Agent Client Protocol agent (a conversation).",
    },
    command: {
      type: 'string',
      minLength: 1,
      description:
        "Executable to spawn (PATH lookup applies). Default 'claude' in claude mode; required otherwise.",
    },
    args: {
      type: 'array',
      items: { type: 'string' },
      description:
        "Arguments passed to the command. Plain mode: '{instruction}' in an argument is replaced by the instruction (stdin then gets EOF at once).",
    },
    env: {
      type: 'object',
      additionalProperties: { type: 'string' },
      description:
        'Extra environment variables for the child (values are redacted in agent://config/effective).',
    },
    inheritEnv: {
      type: 'boolean',
      description: "Default true. False starts the child with only PATH, HOME, LANG, TZ and 'env'.",
    },
    cwd: { type: 'string', minLength: 1, description: 'Working directory of the child.' },
    timeoutMs: positiveInt('Per-run timeout for this agent; the child is killed when it expires.'),
    description: { type: 'string', description: 'Shown to peers in the subagent.spawn tool description.' },
    permissions: permissionsSchema,
    budget: budgetSchema,
    idleTimeoutMs: {
      type: 'integer',
      minimum: 0,
      maximum: 2_147_483_647,
      description:
        'A conversation (warm session, claude or acp run) waiting this long for its next message is closed; 0 never. Default limits.warmIdleTimeoutMs.',
    },
    allowFileSystem: {
      type: 'boolean',
      description: "acp: answer the agent's fs/* methods within the run's working directory (default false).",
    },
    allowTerminal: {
      type: 'boolean',
      description:
        "acp: answer the agent's terminal/* methods within the run's working directory (default false).",
    },
    workspace: WORKSPACE_SCHEMA,
  },
};

export const CONFIG_SCHEMA: JsonObject = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  $id: 'https://agentd.dev/schema/agentd-config.json',
  title: 'agentd configuration',
  type: 'object',
  additionalProperties: false,
  properties: {
    $schema: { type: 'string', description: 'Optional pointer to this schema, ignored by agentd.' },
    serve: {
      type: 'array',
      description:
        "Serve targets (restart required): 'unix:PATH', 'vsock:PORT', 'vsock:CID:PORT', 'http://HOST:PORT', 'https://HOST:PORT', 'stdio'.",
      items: { type: 'string', pattern: '^(unix:.+|vsock:[0-9]+(:[0-9]+)?|https?://.+|stdio)$' },
      uniqueItems: true,
    },
    auth: {
      type: 'object',
      additionalProperties: false,
      description: 'HTTP authentication (restart required). Required for any non-loopback HTTP target.',
      properties: {
        bearerTokens: {
          type: 'array',
          items: {
            type: 'object',
            additionalProperties: false,
            required: ['name', 'token'],
            properties: {
              name: { type: 'string', minLength: 1, description: 'Principal name, used in logs.' },
              token: { type: 'string', minLength: 16, description: 'The secret (at least 16 characters).' },
            },
          },
        },
        oauth: {
          type: 'object',
          additionalProperties: false,
          required: ['issuer', 'audience', 'jwksUri'],
          description:
            'OAuth 2.1 resource server: accept JWT access tokens from this issuer (served with RFC 9728 metadata).',
          properties: {
            issuer: {
              type: 'string',
              pattern: '^https?://',
              description: "The authorization server's issuer identifier (the tokens' iss).",
            },
            audience: {
              type: 'string',
              pattern: '^https?://',
              description:
                "This server's resource URI, e.g. 'https://agentd.example.com/mcp' (the tokens' aud).",
            },
            jwksUri: { type: 'string', pattern: '^https?://', description: "The issuer's JWKS URL." },
            requiredScopes: {
              type: 'array',
              items: { type: 'string', minLength: 1, pattern: '^[^ ]+$' },
              uniqueItems: true,
              description: 'Scopes every request needs (403 insufficient_scope otherwise).',
            },
            stepUp: {
              type: 'boolean',
              description:
                'Classic exposure: calling an operation the token lacks operationScopes for answers 403 insufficient_scope (the client may re-authorize) instead of unknown tool. Default false.',
            },
          },
        },
        operationScopes: {
          type: 'object',
          description:
            "OAuth scopes a token needs to see and call each operation, by '{kind}_{id}' name (e.g. 'command_drain'); merged over the defaults, [] requires none. Peers with static bearer tokens, unix and vsock peers are exempt.",
          propertyNames: { pattern: '^(query|command)_[A-Za-z0-9_.-]+$' },
          additionalProperties: {
            type: 'array',
            items: { type: 'string', minLength: 1, pattern: '^[^ ]+$' },
            uniqueItems: true,
          },
        },
      },
    },
    tls: {
      type: 'object',
      additionalProperties: false,
      required: ['cert', 'key'],
      description: 'PEM certificate and key files for https:// targets (restart required).',
      properties: {
        cert: { type: 'string', minLength: 1 },
        key: { type: 'string', minLength: 1 },
      },
    },
    http: {
      type: 'object',
      additionalProperties: false,
      description:
        'DNS-rebinding guard of HTTP targets (restart required): loopback names are always allowed; a non-loopback target also allows its own host.',
      properties: {
        allowedHosts: {
          type: 'array',
          items: { type: 'string', minLength: 1 },
          description:
            "Extra Host header names clients use, e.g. 'agentd.internal' or 'agentd.internal:4387'.",
        },
        allowedOrigins: {
          type: 'array',
          items: { type: 'string', minLength: 1 },
          description: "Browser origins allowed to call agentd, e.g. 'https://console.example.com'.",
        },
      },
    },
    exposure: {
      enum: ['codemode', 'classic'],
      description:
        "'codemode': two tools (search, execute); 'classic': one tool per operation (restart required).",
    },
    codeModeWallMs: {
      type: 'integer',
      minimum: 1000,
      description:
        'Wall-clock limit of one Code Mode execute call, waiting on operations included (restart required). Long enough for sync spawns; sandbox CPU stays capped separately.',
    },
    codeMode: {
      type: 'object',
      additionalProperties: false,
      description:
        "Sandbox limits of Code Mode's execute; unset keys keep the sandbox defaults (restart required).",
      properties: {
        cpuMs: positiveInt('Guest CPU time per execute, across awaits (default 10000).'),
        memoryBytes: {
          type: 'integer',
          minimum: 32 * 1024 * 1024,
          maximum: 1024 * 1024 * 1024,
          description: 'Hard cap on one sandbox memory (default 64 MiB).',
        },
        maxCalls: {
          type: 'integer',
          minimum: 0,
          maximum: 1_000_000,
          description: 'Operation calls per execute (default 1000).',
        },
        maxResultBytes: {
          type: 'integer',
          minimum: 256,
          description: "Bytes of the script's JSON result before it is truncated (default 65536).",
        },
        maxLogLines: {
          type: 'integer',
          minimum: 0,
          description: 'console.* lines kept per execute (default 200).',
        },
        maxRunningPerPrincipal: positiveInt(
          'Executions one caller (principal) runs at once; its others wait; the next execution goes to the caller that used the least CPU recently, a caller not seen lately counting as half a typical execution (default 4).',
        ),
        maxQueuedPerPrincipal: {
          type: 'integer',
          minimum: 0,
          description:
            "Executions one caller may have waiting; beyond it execute answers 'busy' (default 64).",
        },
        maxQueueWaitMs: positiveInt(
          "How long an execution may wait for a sandbox worker before it ends with 'busy' (default 10000).",
        ),
        priorityWorkers: positiveInt(
          'Sandbox threads reserved for management callers, which restricted callers cannot fill or slow (default 1).',
        ),
      },
    },
    connections: {
      type: 'object',
      additionalProperties: false,
      description: 'Limits of unix, vsock and stdio connections (restart required).',
      properties: {
        highWaterBytes: positiveInt(
          "Queued replies above which agentd stops reading a connection's requests until the peer catches up (default 1048576).",
        ),
        maxBufferedBytes: positiveInt(
          'Unread notifications a peer may accumulate before it is dropped as too slow (default 16777216).',
        ),
        writeTimeoutMs: positiveInt(
          'A peer whose queued output makes no progress this long is dropped (default 30000).',
        ),
        maxBufferedInputBytes: positiveInt(
          'Bytes of unfinished request lines all connections together may hold; the connection passing it is refused and closed (default 67108864).',
        ),
        halfCloseDrainMs: {
          type: 'integer',
          minimum: 0,
          description:
            "After a peer's EOF, how long its in-flight requests may still finish; 0 cancels them at once (default 0).",
        },
      },
    },
    logLevel: {
      enum: [...LOG_LEVEL_SPELLINGS],
      description:
        "Lowest level written to stderr (hot-reloadable): MCP's eight syslog levels; 'warn' means 'warning'.",
    },
    eventsRing: positiveInt('Capacity of the agent://events ring (restart required).', 100_000),
    drainTimeoutMs: positiveInt('How long SIGTERM/drain waits for running subagents before cancelling them.'),
    watch: {
      type: 'boolean',
      description: 'Reload the config file when it changes (SIGHUP always reloads).',
    },
    metrics: {
      type: 'string',
      pattern: '^http://',
      description:
        "Serve Prometheus metrics at this address, e.g. 'http://127.0.0.1:9464' (path default /metrics; restart required). A non-loopback address needs a bearer token.",
    },
    cluster: CLUSTER_SCHEMA,
    telemetry: TELEMETRY_SCHEMA,
    stateDir: {
      type: 'string',
      pattern: '^/',
      description:
        'Absolute path of the state directory (run history, workspaces; restart required). Default $XDG_STATE_HOME/agentd, else ~/.local/state/agentd.',
    },
    history: HISTORY_SCHEMA,
    defaultAgent: {
      type: 'string',
      minLength: 1,
      description: 'Profile used when subagent.spawn names none.',
    },
    agents: {
      type: 'object',
      description: 'Agent profiles by name (hot-reloadable). Merged over the built-in profiles.',
      propertyNames: { pattern: '^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$' },
      additionalProperties: agentProfileSchema,
    },
    limits: {
      type: 'object',
      additionalProperties: false,
      description: 'Supervisor limits (hot-reloadable).',
      properties: {
        maxConcurrentRuns: positiveInt('Concurrent running subagents (sync, async and busy warm turns).'),
        maxWarmSessions: positiveInt('Live warm sessions.'),
        maxTrackedHandles: positiveInt('Handles remembered; the oldest finished one is evicted first.'),
        maxOutputBytes: positiveInt('Largest result or output accepted from one run.'),
        defaultTimeoutMs: positiveInt('Run timeout when neither the request nor the profile sets one.'),
        reservedRuns: {
          type: 'integer',
          minimum: 0,
          description:
            'Concurrent runs kept for management peers: restricted peers (stdio, anonymous HTTP) together get at most maxConcurrentRuns minus this (default 1).',
        },
        reservedWarmSessions: {
          type: 'integer',
          minimum: 0,
          description:
            'Warm sessions kept for management peers: restricted peers together get at most maxWarmSessions minus this (default 1).',
        },
        restrictedRunsPerPrincipal: positiveInt(
          'Concurrent runs one restricted principal may hold; anonymous HTTP peers are one principal together (default 2).',
        ),
        restrictedWarmSessionsPerPrincipal: positiveInt(
          'Warm sessions one restricted principal may hold; anonymous HTTP peers are one principal together (default 2).',
        ),
        restrictedMaxTimeoutMs: positiveInt(
          'Longest timeoutMs a restricted peer may ask for (per turn for warm sessions); longer requests are refused and defaults are cut to it (default 3600000).',
          2_147_483_647,
        ),
      },
    },
  },
};

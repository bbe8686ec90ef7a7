/** Parses agentd's command line into one command; usage errors are UsageError (exit 2). */
import { SETTINGS } from '../config/settings.js';

export class UsageError extends Error {
  override name = 'UsageError';
}

export type Command =
  | {
      kind: 'serve';
      stdio: boolean;
      flags: Map<string, string[]>;
      configPath?: string;
      bearerTokenFile?: string;
    }
  | { kind: 'config-schema' }
  | { kind: 'config-check'; file: string }
  | { kind: 'call'; socket?: string; method: string; params?: string }
  | { kind: 'status' | 'tools'; socket?: string }
  | {
      kind: 'spawn';
      socket?: string;
      instruction: string;
      agent?: string;
      async: boolean;
      timeoutMs?: number;
    }
  | { kind: 'help' }
  | { kind: 'version' };

const VALUE_FLAGS = new Set([
  ...SETTINGS.filter((s) => s.type !== 'bool').map((s) => s.flag),
  '--config',
  '--bearer-token-file',
]);
const BOOL_FLAGS = new Set(SETTINGS.filter((s) => s.type === 'bool').map((s) => s.flag));

/** Splits `--name=value` / `--name value` / `--flag` / `--no-flag`; positionals are returned in order. */
function scan(args: readonly string[], valueFlags: ReadonlySet<string>, boolFlags: ReadonlySet<string>) {
  const flags = new Map<string, string[]>();
  const positionals: string[] = [];
  const add = (name: string, value: string) => flags.set(name, [...(flags.get(name) ?? []), value]);
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg === '--') {
      positionals.push(...args.slice(i + 1));
      break;
    }
    if (!arg.startsWith('--')) {
      positionals.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const name = eq === -1 ? arg : arg.slice(0, eq);
    if (boolFlags.has(name)) {
      add(name, eq === -1 ? 'true' : arg.slice(eq + 1));
    } else if (name.startsWith('--no-') && boolFlags.has(`--${name.slice(5)}`) && eq === -1) {
      add(`--${name.slice(5)}`, 'false');
    } else if (valueFlags.has(name)) {
      const value = eq === -1 ? args[++i] : arg.slice(eq + 1);
      if (value === undefined) throw new UsageError(`${name} needs a value`);
      add(name, value);
    } else {
      throw new UsageError(`unknown option ${name}`);
    }
  }
  return { flags, positionals };
}

function last(flags: Map<string, string[]>, name: string): string | undefined {
  const values = flags.get(name);
  flags.delete(name);
  return values?.[values.length - 1];
}

function serve(args: readonly string[], stdio: boolean): Command {
  const { flags, positionals } = scan(args, VALUE_FLAGS, BOOL_FLAGS);
  if (positionals.length > 0) throw new UsageError(`unexpected argument '${positionals[0]}'`);
  const configPath = last(flags, '--config');
  const bearerTokenFile = last(flags, '--bearer-token-file');
  return {
    kind: 'serve',
    stdio,
    flags,
    ...(configPath === undefined ? {} : { configPath }),
    ...(bearerTokenFile === undefined ? {} : { bearerTokenFile }),
  };
}

function client(kind: 'call' | 'status' | 'tools' | 'spawn', args: readonly string[]): Command {
  const valueFlags = new Set(['--socket', ...(kind === 'spawn' ? ['--agent', '--timeout-ms'] : [])]);
  const boolFlags = new Set(kind === 'spawn' ? ['--async'] : []);
  const { flags, positionals } = scan(args, valueFlags, boolFlags);
  const socket = last(flags, '--socket');
  const withSocket = socket === undefined ? {} : { socket };
  if (kind === 'call') {
    const [method, params, extra] = positionals;
    if (method === undefined) throw new UsageError('usage: agentd call [--socket PATH] METHOD [JSON]');
    if (extra !== undefined) throw new UsageError(`unexpected argument '${extra}' (quote the JSON params)`);
    return { kind, method, ...withSocket, ...(params === undefined ? {} : { params }) };
  }
  if (kind === 'spawn') {
    if (positionals.length !== 1)
      throw new UsageError(
        'usage: agentd spawn [--socket PATH] [--agent NAME] [--async] [--timeout-ms N] "instruction"',
      );
    const agent = last(flags, '--agent');
    const timeout = last(flags, '--timeout-ms');
    if (timeout !== undefined && !/^[0-9]+$/.test(timeout))
      throw new UsageError('--timeout-ms needs a positive integer');
    return {
      kind,
      instruction: positionals[0] as string,
      async: last(flags, '--async') === 'true',
      ...withSocket,
      ...(agent === undefined ? {} : { agent }),
      ...(timeout === undefined ? {} : { timeoutMs: Number(timeout) }),
    };
  }
  if (positionals.length > 0) throw new UsageError(`unexpected argument '${positionals[0]}'`);
  return { kind, ...withSocket };
}

export function parseArgs(argv: readonly string[]): Command {
  const [first, ...rest] = argv;
  switch (first) {
    case undefined:
      return serve([], false);
    case 'serve':
      return serve(rest, false);
    case 'stdio':
      return serve(rest, true);
    case 'help':
    case '--help':
    case '-h':
      return { kind: 'help' };
    case 'version':
    case '--version':
      return { kind: 'version' };
    case 'config': {
      const [sub, file, extra] = rest;
      if (sub === 'schema' && file === undefined) return { kind: 'config-schema' };
      if (sub === 'check' && file !== undefined && extra === undefined) return { kind: 'config-check', file };
      throw new UsageError('usage: agentd config schema | agentd config check FILE');
    }
    case 'call':
    case 'status':
    case 'tools':
    case 'spawn':
      return client(first, rest);
    default:
      if (first.startsWith('--')) return serve(argv, false);
      throw new UsageError(`unknown command '${first}' (try agentd --help)`);
  }
}

export const USAGE = `agentd: an MCP-native supervisor of agent runs

Usage:
  agentd [serve] [options]        start the daemon (defaults: unix socket + loopback HTTP)
  agentd stdio [options]          serve MCP on this process's stdin/stdout (origin stdio)
  agentd config schema            print the config file's JSON Schema
  agentd config check FILE        validate a config file (exit 0 valid, 2 invalid)
  agentd call [--socket PATH] METHOD [JSON]   send one MCP request (modern era), print the result
  agentd status [--socket PATH]   show the daemon's status
  agentd tools [--socket PATH]    list the tools the daemon offers
  agentd spawn [--socket PATH] [--agent NAME] [--async] [--timeout-ms N] "instruction"

Daemon options (each also settable in the config file and as AGENTD_* environment variables):
  --config FILE                   JSON config file (AGENTD_CONFIG)
  --serve TARGET                  repeatable: unix:PATH | vsock:PORT | vsock:CID:PORT |
                                  http://HOST:PORT | https://HOST:PORT | stdio   (AGENTD_SERVE, comma list)
  --log-level debug|info|warn|error
  --exposure codemode|classic     Code Mode (search + execute) or one tool per operation
  --default-agent NAME            profile used when subagent.spawn names none
  --drain-timeout-ms N            SIGTERM/drain grace before running subagents are cancelled
  --events-ring N                 capacity of agent://events
  --[no-]watch                    reload the config file when it changes (SIGHUP always reloads)
  --tls-cert FILE --tls-key FILE  PEM files for https:// targets
  --bearer-token-file FILE        bearer token for HTTP (or AGENTD_BEARER_TOKEN; never on argv)
  --max-concurrent-runs N  --max-warm-sessions N  --max-tracked-handles N
  --max-output-bytes N     --default-timeout-ms N

Exit status: 0 ok, 1 runtime failure, 2 bad usage or bad configuration.
`;

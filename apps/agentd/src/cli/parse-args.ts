/** Parses agentd's command line into one command; usage errors are UsageError (exit 2). */
import { LOG_LEVELS, LocalError, type LogLevel } from '@agentd/rpc-frame';
import { SETTINGS } from '../config/settings.js';
import type { AgentdErrorCode } from '../local-errors.js';
import { parseLogLevel } from '../log/log-level.js';
import { historyRunsAction } from './history-args.js';
import {
  CLIENT_SPECS,
  type ClientCommandName,
  type ClientSpec,
  commandHelp,
  type FlagSpec,
  USAGE,
} from './usage.js';

export class UsageError extends LocalError<AgentdErrorCode> {
  override name = 'UsageError';
  constructor(message: string) {
    super('usage', message);
  }
}

/** How a client command reaches the daemon. */
export interface Connection {
  socket?: string;
  url?: string;
  tokenFile?: string;
  /** Find the socket (or URL) in this config file, as the daemon would (also AGENTD_CONFIG). */
  configPath?: string;
}

export type StdioDaemonMode = 'auto' | 'start' | 'require' | 'off';
const DAEMON_MODES: readonly StdioDaemonMode[] = ['auto', 'start', 'require', 'off'];

export type ClientAction =
  | { kind: 'call'; method: string; params?: string }
  | { kind: 'status'; handle?: string }
  | { kind: 'tools' }
  | { kind: 'runs'; all?: boolean; agent?: string; state?: string; since?: string; cursor?: string }
  | { kind: 'logs'; handle: string; follow: boolean; events: boolean }
  | {
      kind: 'spawn';
      /** `-` reads it from stdin. */
      instruction: string;
      agent?: string;
      async: boolean;
      warm: boolean;
      timeoutMs?: number;
      /** `--cwd DIR`: a directory inside the agent profile's to start in. */
      cwd?: string;
    }
  | { kind: 'workspace-prune'; stateDir?: string }
  | { kind: 'wait'; handle: string; timeoutMs?: number }
  | { kind: 'attach'; handle: string; timeoutMs?: number }
  | { kind: 'cancel'; handle?: string; all: boolean; reason?: string }
  | { kind: 'send'; handle: string; message: string; timeoutMs?: number }
  | { kind: 'approve'; handle: string; requestId?: string; deny: boolean; always: boolean }
  | { kind: 'close'; handle: string }
  | { kind: 'events'; follow: boolean; level?: LogLevel; after?: number }
  | { kind: 'drain'; deadlineMs?: number }
  | { kind: 'lame-duck'; ready: boolean }
  | { kind: 'ui'; open: boolean; rotate: boolean }
  // One variant each: a command's handler (commands/command-table.ts) is typed by its kind.
  | { kind: 'pause' }
  | { kind: 'resume' }
  | { kind: 'reload' };

export type ClientCommand = ClientAction & {
  connection: Connection;
  json: boolean;
  /** `--color-agent-output`: an agent's SGR colours pass through on a colour terminal. */
  agentColours?: boolean;
  /** `--events` (spawn, attach, send): the run's events as JSON lines on stdout. */
  events?: boolean;
};

export type Command =
  | {
      kind: 'serve';
      stdio: boolean;
      /** `agentd stdio` only: join the user's daemon when it runs (auto), start it, require it, or never (off). */
      daemon?: StdioDaemonMode;
      flags: Map<string, string[]>;
      configPath?: string;
      bearerTokenFile?: string;
    }
  | { kind: 'config-schema' }
  | { kind: 'config-check'; file: string }
  | { kind: 'client'; command: ClientCommand }
  | { kind: 'help'; text: string }
  | { kind: 'version' };

const VALUE_FLAGS = new Set([
  ...SETTINGS.filter((s) => s.type !== 'bool').map((s) => s.flag),
  '--config',
  '--bearer-token-file',
  '--daemon',
]);
const BOOL_FLAGS = new Set(SETTINGS.filter((s) => s.type === 'bool').map((s) => s.flag));

const isHelp = (arg: string) => arg === '--help' || arg === '-h';

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
    // `-` alone is a positional: "read it from stdin".
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
  return values?.[values.length - 1];
}

function serve(args: readonly string[], stdio: boolean): Command {
  const { flags, positionals } = scan(args, VALUE_FLAGS, BOOL_FLAGS);
  if (positionals.length > 0) throw new UsageError(`unexpected argument '${positionals[0]}'`);
  const configPath = last(flags, '--config');
  const bearerTokenFile = last(flags, '--bearer-token-file');
  const daemon = last(flags, '--daemon');
  if (daemon !== undefined && !stdio) throw new UsageError('--daemon is an option of agentd stdio');
  if (daemon !== undefined && !(DAEMON_MODES as readonly string[]).includes(daemon))
    throw new UsageError(`--daemon must be one of ${DAEMON_MODES.join(', ')}, got '${daemon}'`);
  flags.delete('--config');
  flags.delete('--bearer-token-file');
  flags.delete('--daemon');
  return {
    kind: 'serve',
    stdio,
    ...(daemon === undefined ? {} : { daemon: daemon as StdioDaemonMode }),
    flags,
    ...(configPath === undefined ? {} : { configPath }),
    ...(bearerTokenFile === undefined ? {} : { bearerTokenFile }),
  };
}

function integer(flags: Map<string, string[]>, name: string, min = 1): number | undefined {
  const text = last(flags, name);
  if (text === undefined) return undefined;
  const value = /^[0-9]+$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(value) || value < min) {
    throw new UsageError(`${name} needs an integer of at least ${min}, got '${text}'`);
  }
  return value;
}

/** Every client command shares the connection flags and --json; the spec adds its own. */
function client(name: ClientCommandName, args: readonly string[]): Command {
  const spec: ClientSpec = CLIENT_SPECS[name];
  const own: readonly FlagSpec[] = spec.flags ?? [];
  const valueFlags = new Set(['--socket', '--url', '--token-file', '--config']);
  const boolFlags = new Set(['--json', '--color-agent-output']);
  for (const flag of own) (flag.value === undefined ? boolFlags : valueFlags).add(flag.name);
  const { flags, positionals } = scan(args, valueFlags, boolFlags);
  const usage = () => new UsageError(`usage: agentd ${spec.usage} (see agentd ${name} --help)`);
  const [first, second, extra] = positionals;
  const connection: Connection = {};
  for (const [flag, key] of [
    ['--socket', 'socket'],
    ['--url', 'url'],
    ['--token-file', 'tokenFile'],
    ['--config', 'configPath'],
  ] as const) {
    const value = last(flags, flag);
    if (value !== undefined) connection[key] = value;
  }
  if (connection.socket !== undefined && connection.url !== undefined)
    throw new UsageError('--socket and --url are alternatives: give one');
  const bool = (flag: string) => last(flags, flag) === 'true';
  const optional = <K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } =>
    (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
  const positionalCount = (min: number, max: number) => {
    if (positionals.length < min || positionals.length > max) throw usage();
  };
  let action: ClientAction;
  switch (name) {
    case 'call':
      if (first === undefined) throw usage();
      if (extra !== undefined) throw new UsageError(`unexpected argument '${extra}' (quote the JSON params)`);
      action = { kind: 'call', method: first, ...optional('params', second) };
      break;
    case 'status':
      positionalCount(0, 1);
      action = { kind: 'status', ...optional('handle', first) };
      break;
    case 'spawn':
      positionalCount(1, 1);
      action = {
        kind: 'spawn',
        instruction: first as string,
        async: bool('--async'),
        warm: bool('--warm'),
        ...optional('agent', last(flags, '--agent')),
        ...optional('timeoutMs', integer(flags, '--timeout-ms')),
        ...optional('cwd', last(flags, '--cwd')),
      };
      if (action.async && action.warm) throw new UsageError('--async and --warm are alternatives');
      break;
    case 'wait':
    case 'attach':
      positionalCount(1, 1);
      action = {
        kind: name,
        handle: first as string,
        ...optional('timeoutMs', integer(flags, '--timeout-ms')),
      };
      break;
    case 'cancel': {
      const all = bool('--all');
      if (all === (first !== undefined) || positionals.length > 1)
        throw new UsageError('usage: agentd cancel RUN | agentd cancel --all');
      action = {
        kind: 'cancel',
        all,
        ...optional('handle', first),
        ...optional('reason', last(flags, '--reason')),
      };
      break;
    }
    case 'send':
      positionalCount(2, 2);
      action = {
        kind: 'send',
        handle: first as string,
        message: second as string,
        ...optional('timeoutMs', integer(flags, '--timeout-ms')),
      };
      break;
    case 'approve':
      positionalCount(1, 2);
      action = {
        kind: 'approve',
        handle: first as string,
        ...optional('requestId', second),
        deny: bool('--deny'),
        always: bool('--always'),
      };
      break;
    case 'close':
      positionalCount(1, 1);
      action = { kind: 'close', handle: first as string };
      break;
    case 'events': {
      positionalCount(0, 0);
      const named = last(flags, '--level');
      const level = named === undefined ? undefined : parseLogLevel(named);
      if (named !== undefined && level === undefined)
        throw new UsageError(`--level must be one of ${LOG_LEVELS.join(', ')} (warn means warning)`);
      action = {
        kind: 'events',
        follow: bool('--follow'),
        ...optional('level', level),
        ...optional('after', integer(flags, '--after', 0)),
      };
      break;
    }
    case 'drain':
      positionalCount(0, 0);
      action = { kind: 'drain', ...optional('deadlineMs', integer(flags, '--deadline-ms', 0)) };
      break;
    case 'lame-duck':
      positionalCount(0, 0);
      action = { kind: 'lame-duck', ready: bool('--ready') };
      break;
    case 'runs':
      positionalCount(0, 0);
      action = historyRunsAction(bool('--all'), (flag) => last(flags, flag));
      break;
    case 'workspace':
      positionalCount(1, 1);
      if (first !== 'prune') throw usage();
      action = { kind: 'workspace-prune', ...optional('stateDir', last(flags, '--state-dir')) };
      break;
    case 'logs':
      positionalCount(1, 1);
      action = { kind: 'logs', handle: first as string, follow: bool('--follow'), events: bool('--events') };
      break;
    case 'tools':
    case 'pause':
    case 'resume':
    case 'reload':
      positionalCount(0, 0);
      action = { kind: name };
      break;
    case 'ui':
      positionalCount(0, 0);
      action = { kind: 'ui', open: bool('--open'), rotate: bool('--rotate') };
      break;
  }
  const colours = bool('--color-agent-output') ? { agentColours: true } : {};
  const events = bool('--events') ? { events: true } : {};
  return { kind: 'client', command: { ...action, connection, json: bool('--json'), ...colours, ...events } };
}

/** Options every client command takes, also accepted before the command name. */
const GLOBAL_VALUE_FLAGS = new Set(['--config', '--socket', '--url', '--token-file']);
const GLOBAL_BOOL_FLAGS = new Set(['--json']);

/**
 * `agentd --config x.json spawn "…"`: the global options in front of a command, and where the
 * command starts; `command` is undefined when no command name follows them (then it is the daemon's
 * own flags, as `agentd --config x.json --serve …`).
 */
function leadingGlobals(argv: readonly string[]): { globals: string[]; command?: number } {
  let i = 0;
  while (i < argv.length) {
    const arg = argv[i] as string;
    const name = arg.includes('=') ? arg.slice(0, arg.indexOf('=')) : arg;
    if (GLOBAL_BOOL_FLAGS.has(arg)) i += 1;
    else if (GLOBAL_VALUE_FLAGS.has(name) && name !== arg) i += 1;
    else if (GLOBAL_VALUE_FLAGS.has(arg) && i + 1 < argv.length) i += 2;
    else break;
  }
  const next = argv[i];
  if (i === 0 || next === undefined || next.startsWith('-')) return { globals: [] };
  return { globals: argv.slice(0, i), command: i };
}

export function parseArgs(argv: readonly string[]): Command {
  const { globals, command } = leadingGlobals(argv);
  if (command !== undefined) {
    const name = argv[command] as string;
    if (name === 'help' || name === 'version') return parseCommand(argv.slice(command));
    if (name !== 'serve' && name !== 'stdio' && !Object.hasOwn(CLIENT_SPECS, name))
      throw new UsageError(`unknown command '${name}' (try agentd --help)`);
    // Ahead of the command's own arguments, so a `--` among them still ends the options.
    return parseCommand([name, ...globals, ...argv.slice(command + 1)]);
  }
  return parseCommand(argv);
}

function parseCommand(argv: readonly string[]): Command {
  const [first, ...rest] = argv;
  // `agentd CMD --help` (anywhere before `--`) is help for that command, never an argument.
  const end = rest.indexOf('--');
  const wantsHelp = (end === -1 ? rest : rest.slice(0, end)).some(isHelp);
  switch (first) {
    case undefined:
      return serve([], false);
    case 'serve':
    case 'stdio':
      if (wantsHelp) return { kind: 'help', text: commandHelp(first) };
      return serve(rest, first === 'stdio');
    case 'help':
    case '--help':
    case '-h':
      return { kind: 'help', text: rest[0] === undefined ? USAGE : commandHelp(rest[0]) };
    case 'version':
    case '--version':
    case '-V':
      return { kind: 'version' };
    case 'config': {
      if (wantsHelp) return { kind: 'help', text: commandHelp('config') };
      const [sub, file, extra] = rest;
      if (sub === 'schema' && file === undefined) return { kind: 'config-schema' };
      if (sub === 'check' && file !== undefined && extra === undefined) return { kind: 'config-check', file };
      throw new UsageError('usage: agentd config schema | agentd config check FILE');
    }
    default:
      if (Object.hasOwn(CLIENT_SPECS, first)) {
        if (wantsHelp) return { kind: 'help', text: commandHelp(first) };
        return client(first as ClientCommandName, rest);
      }
      if (first.startsWith('--')) {
        if (argv.some(isHelp)) return { kind: 'help', text: USAGE };
        return serve(argv, false);
      }
      throw new UsageError(`unknown command '${first}' (try agentd --help)`);
  }
}

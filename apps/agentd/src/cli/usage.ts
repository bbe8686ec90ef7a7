/** The CLI's commands as one table: parsing reads their flags from it, help texts are rendered from it. */

export interface FlagSpec {
  name: string;
  /** The value's placeholder; absent for a boolean flag. */
  value?: string;
  description: string;
}

export interface ClientSpec {
  usage: string;
  summary: string;
  flags?: readonly FlagSpec[];
  /** Extra lines for `agentd CMD --help`. */
  details?: string;
}

const timeout = (what: string): FlagSpec => ({ name: '--timeout-ms', value: 'N', description: what });
const eventLines: FlagSpec = {
  name: '--events',
  description: "the run's events as JSON lines on stdout (tool calls, permission prompts, plan, usage)",
};
const EVENT_DETAILS =
  "On a terminal the run's events show one line each: tool calls (▸), permission prompts (? with the\n" +
  'agentd approve command that answers them), the plan as a checklist, usage at the end of a turn;\n' +
  "the agent's message streams as text.";

export const CLIENT_SPECS = {
  status: {
    usage: 'status [RUN]',
    summary: "the daemon's status, or one run's status and result",
  },
  runs: {
    usage: 'runs [--all [--agent NAME] [--state S] [--since TIME] [--cursor C]]',
    summary: 'list the tracked runs (operators), or with --all the run history kept across restarts',
    flags: [
      {
        name: '--all',
        description: 'the stored history, newest first, one page (its next cursor on stderr)',
      },
      { name: '--agent', value: 'NAME', description: 'only runs of this agent profile' },
      { name: '--state', value: 'S', description: 'only runs in this state (succeeded, failed, lost, ...)' },
      { name: '--since', value: 'TIME', description: 'only runs started at or after this ISO time' },
      { name: '--cursor', value: 'C', description: 'the page after the one that printed this cursor' },
    ],
  },
  logs: {
    usage: 'logs RUN [--follow] [--events]',
    summary: "print a run's whole output from its stored events (kept across restarts)",
    flags: [
      { name: '--follow', description: 'keep printing until the run ends' },
      { name: '--events', description: 'print every stored event as a JSON line instead of the output' },
    ],
  },
  spawn: {
    usage: 'spawn [--agent NAME] [--async | --warm] [--timeout-ms N] [--cwd DIR] INSTRUCTION|-',
    summary: 'start a subagent; waits for its result and streams its output unless --async',
    flags: [
      { name: '--agent', value: 'NAME', description: "agent profile (default: the daemon's defaultAgent)" },
      { name: '--async', description: 'print the handle as soon as the run started, do not wait' },
      { name: '--warm', description: 'keep a live session after the first turn (continue it with send)' },
      timeout('kill the run if it takes longer'),
      {
        name: '--cwd',
        value: 'DIR',
        description: "start in DIR, inside the profile's directory (relative to it); never outside",
      },
      eventLines,
    ],
    details:
      "INSTRUCTION `-` reads it from stdin. While it waits, the agent's output lines and log messages\n" +
      'stream to stderr; the result goes to stdout. On a terminal the output streams once on stdout,\n' +
      "the agent's stderr lines are marked `!`, a status line shows the elapsed time while the agent is\n" +
      'silent, and states are coloured (not with NO_COLOR). Ctrl-C (SIGINT) or SIGTERM cancels the run\n' +
      'and says so. An unknown --agent exits 2 and lists the agents.\n' +
      EVENT_DETAILS,
  },
  attach: {
    usage: 'attach RUN [--timeout-ms N]',
    summary: 'follow a running run: its recent lines, then its output as it comes, then its result',
    flags: [timeout('stop following after N ms (exit 3; the run keeps going)'), eventLines],
    details:
      'Shows the run as a sync spawn does, and exits as wait does (0 succeeded, 1 failed, cancelled,\n' +
      'timed out or lost). Ctrl-C stops following; the run goes on.\n' +
      EVENT_DETAILS,
  },
  wait: {
    usage: 'wait RUN [--timeout-ms N]',
    summary: 'wait until a run ends, then print its result',
    flags: [timeout('give up after N ms (exit 3; the run keeps going)')],
  },
  cancel: {
    usage: 'cancel RUN | cancel --all',
    summary: 'cancel a run (kills its process tree), or every live run (operators)',
    details:
      'A run that had already ended is left as it is: cancel says so with its outcome and exits 0\n' +
      '(--json adds "alreadyEnded": true).',
    flags: [
      { name: '--all', description: 'every live run and warm session' },
      { name: '--reason', value: 'TEXT', description: "recorded as the run's reason" },
    ],
  },
  send: {
    usage: 'send RUN MESSAGE|-',
    summary: 'send one turn to a warm session and print the reply',
    flags: [timeout('bound this turn'), eventLines],
    details: `MESSAGE \`-\` reads it from stdin.\n${EVENT_DETAILS}`,
  },
  approve: {
    usage: 'approve RUN [REQUEST_ID] [--deny] [--always]',
    summary: "answer a run's pending permission prompt (allow by default)",
    flags: [
      { name: '--deny', description: "reject instead of allowing (the agent's reject option)" },
      { name: '--always', description: "take the agent's 'always' option when it offers one" },
    ],
    details:
      'REQUEST_ID may be left out when exactly one prompt is pending (status shows them). Only the\n' +
      "run's starter and operators may answer; exactly one answer counts: a prompt already answered\n" +
      '(by the caller, the policy, the timeout or another operator) exits 1 and says who decided it.',
  },
  workspace: {
    usage: 'workspace prune [--state-dir DIR]',
    summary: 'remove the worktrees and copies of runs that are no longer live (operators)',
    flags: [
      {
        name: '--state-dir',
        value: 'DIR',
        description: 'prune this state directory here, without asking the daemon',
      },
    ],
    details:
      'The daemon prunes its own state directory; when no daemon answers on the unix socket, agentd\n' +
      'prunes AGENTD_STATE_DIR, else $XDG_STATE_HOME/agentd (~/.local/state/agentd) itself. Runs still\n' +
      "live (in this daemon, or in another one that is alive) are left alone. A worktree's uncommitted\n" +
      'work is committed on its branch agentd/RUNID first; a branch that holds work is kept, one that\n' +
      'holds nothing is deleted.',
  },
  close: {
    usage: 'close RUN',
    summary: 'end a conversation (warm session) gracefully and print its final status',
  },
  events: {
    usage: 'events [--follow] [--level L] [--after SEQ]',
    summary: "print the daemon's log events (agent://events, operators)",
    flags: [
      { name: '--follow', description: 'keep printing new events until interrupted' },
      { name: '--level', value: 'L', description: 'debug | info | warn | error (lowest level shown)' },
      { name: '--after', value: 'SEQ', description: 'only events after this sequence number' },
    ],
  },
  drain: {
    usage: 'drain [--deadline-ms N]',
    summary: 'stop accepting spawns, let running ones finish until the deadline, then exit (operators)',
    flags: [{ name: '--deadline-ms', value: 'N', description: "default: the daemon's drainTimeoutMs" }],
  },
  'lame-duck': {
    usage: 'lame-duck [--ready]',
    summary: 'report not-ready (for load balancers) without draining; --ready restores it (operators)',
    flags: [{ name: '--ready', description: 'become ready again' }],
  },
  pause: { usage: 'pause', summary: 'refuse new spawns and turns until resume (operators)' },
  resume: { usage: 'resume', summary: 'accept spawns again (operators)' },
  reload: {
    usage: 'reload',
    summary: 're-read the config file and apply it (as SIGHUP does); exit 1 if it was rejected (operators)',
  },
  tools: { usage: 'tools', summary: 'list the tools the daemon offers MCP clients' },
  ui: {
    usage: 'ui [--open] [--rotate]',
    summary: "print the dashboard's sign-in URL (/ui/) for each of the daemon's HTTP listeners",
    flags: [
      {
        name: '--open',
        description: 'open the first one in the browser (xdg-open; printed when there is none)',
      },
      {
        name: '--rotate',
        description: 'replace the local operator token first: every signed-in page is signed out',
      },
    ],
    details:
      'On this machine the URL signs the browser in as an operator with the local operator token (kept\n' +
      'in the runtime dir, 0600): open it once, the page trades it for a session of its tab and drops\n' +
      'it from the address bar. Over the unix socket the listeners come from the daemon itself; over\n' +
      '--url the dashboard is the one beside that endpoint. Prints nothing and exits 1 when the daemon\n' +
      'serves no HTTP.',
  },
  call: {
    usage: 'call METHOD [JSON]',
    summary: 'send one MCP request (modern era) and print the result',
  },
} satisfies Record<string, ClientSpec>;

export type ClientCommandName = keyof typeof CLIENT_SPECS;

const CONNECTION_HELP = `Connection (every client command):
  --socket PATH        the daemon's unix socket (AGENTD_SOCKET)
  --url URL            reach the daemon over HTTP(S) instead, e.g. http://127.0.0.1:4387/mcp
  --token-file FILE    bearer token for --url (AGENTD_TOKEN; never on the command line)
  --config FILE        find the socket in this config file, as the daemon does (AGENTD_CONFIG,
                       else $XDG_CONFIG_HOME/agentd/agentd.json or ~/.config/agentd/agentd.json)
  --json               machine-readable output (one JSON value) instead of text
  --color-agent-output let an agent's own SGR colours reach a colour terminal (off by default:
                       agent text is shown inert, control characters as ^[, ^M, <U+202E>)
RUN is a run's handle (sa_…) or its run id (run_…, as spawn prints it; a run id is looked up in
the inventory, so it needs an operator connection).
Default: --url, else --socket, else AGENTD_SOCKET, else the config's first unix (else HTTP)
target, else the default socket. For https with a private CA, set NODE_EXTRA_CA_CERTS.`;

const EXIT_CODES = `Exit status: 0 ok (cancel: also when the run had already ended); 1 runtime failure
(daemon unreachable, refused, the run failed); 2 bad usage or bad configuration (an unknown agent,
or a vsock target where vsock is unavailable); 3 wait or attach gave up (--timeout-ms) while the
run goes on; 4 the run's output was shown truncated (spawn, send, attach, wait, status: the answer
carries at most 1 MiB of output, JSON-escaped; a notice on stderr, "truncated": true in --json);
130 / 143 interrupted by SIGINT / SIGTERM (a run being waited on was cancelled).`;

const pad = (text: string, width: number) => (text.length >= width ? `${text}  ` : text.padEnd(width));

function clientLines(): string {
  return Object.values(CLIENT_SPECS as Record<string, ClientSpec>)
    .map((spec) => {
      const usage = `  agentd ${spec.usage}`;
      return usage.length > 46
        ? `${usage}\n${' '.repeat(46)}${spec.summary}`
        : `${pad(usage, 46)}${spec.summary}`;
    })
    .join('\n');
}

const DAEMON_OPTIONS = `Daemon options (each also settable in the config file and as AGENTD_* environment variables):
  --config FILE                   JSON config file (AGENTD_CONFIG; default ~/.config/agentd/agentd.json
                                  or $XDG_CONFIG_HOME/agentd/agentd.json when it exists)
  --serve TARGET                  repeatable: unix:PATH | vsock:PORT | vsock:CID:PORT |
                                  http://HOST:PORT | https://HOST:PORT | stdio   (AGENTD_SERVE, comma list)
  --log-level LEVEL               debug|info|notice|warning|error|critical|alert|emergency
                                  (warn means warning)
  --exposure codemode|classic     Code Mode (search + execute) or one tool per operation
  --default-agent NAME            profile used when subagent.spawn names none
  --drain-timeout-ms N            SIGTERM/drain grace before running subagents are cancelled
  --events-ring N                 capacity of agent://events
  --[no-]watch                    reload the config file when it changes (SIGHUP always reloads)
  --metrics http://127.0.0.1:PORT serve Prometheus metrics there (loopback only)
  --redis-url redis://HOST:PORT   join a fleet of replicas sharing runs through Redis (cluster.redisUrl)
  --instance-id NAME              this replica's name in the fleet (default: hostname-pid-random)
  --lease-ttl-ms N                a replica silent this long is dead; its unfinished runs become lost
  --tls-cert FILE --tls-key FILE  PEM files for https:// targets
  --bearer-token-file FILE        bearer token for HTTP (or AGENTD_BEARER_TOKEN; never on argv)
  --max-concurrent-runs N  --max-warm-sessions N  --max-tracked-handles N
  --max-output-bytes N     --default-timeout-ms N`;

export const USAGE = `agentd: an MCP-native supervisor of agent runs

Usage:
  agentd [serve] [options]                      start the daemon (defaults: unix socket + loopback HTTP)
  agentd stdio [options]                        serve MCP on stdin/stdout (origin stdio), through the daemon when it runs
  agentd config schema                          print the config file's JSON Schema
  agentd config check FILE                      validate a config file (exit 0 valid, 2 invalid)
  agentd --version
${clientLines()}

Run \`agentd COMMAND --help\` for one command's options.

${DAEMON_OPTIONS}

${CONNECTION_HELP}

${EXIT_CODES}
`;

/** `agentd CMD --help`: the command's usage, flags and the shared connection options. */
export function commandHelp(name: string): string {
  if (name === 'serve' || name === 'stdio') {
    const what =
      name === 'serve'
        ? 'agentd [serve] [options]\n\nStart the daemon; prints where it listens on stdout.'
        : 'agentd stdio [--daemon auto|start|require|off] [options]\n\nServe MCP on stdin/stdout (origin stdio) for an MCP client that launches agentd.\n' +
          "When the user's daemon runs (AGENTD_SOCKET, the config's unix target, the default socket), the\n" +
          'session is bridged to it: its runs show in agentd runs, attach and the dashboard, under the\n' +
          "daemon's config and limits (other options then apply only in-process). Without a daemon it\n" +
          'serves in-process; --daemon start starts the daemon in the background first, --daemon\n' +
          'require fails instead, --daemon off always serves in-process. Exits when stdin closes.';
    return `Usage: ${what}\n\n${DAEMON_OPTIONS}\n\nExit status: 0 stopped cleanly; 1 cannot start (e.g. address in use); 2 bad usage or configuration.\n`;
  }
  if (name === 'config') {
    return `Usage:
  agentd config schema        print the config file's JSON Schema
  agentd config check FILE    validate FILE on top of the built-in defaults (environment and flags ignored)

Exit status: 0 valid; 2 invalid (every problem is listed with its JSON pointer).
`;
  }
  const spec = (CLIENT_SPECS as Record<string, ClientSpec>)[name];
  if (spec === undefined) return USAGE;
  const flags = (spec.flags ?? [])
    .map((f) => `  ${pad(f.value === undefined ? f.name : `${f.name} ${f.value}`, 21)}${f.description}`)
    .join('\n');
  return `Usage: agentd ${spec.usage}

${spec.summary[0]?.toUpperCase()}${spec.summary.slice(1)}.
${spec.details === undefined ? '' : `\n${spec.details}\n`}${flags === '' ? '' : `\nOptions:\n${flags}\n`}
${CONNECTION_HELP}

${EXIT_CODES}
`;
}

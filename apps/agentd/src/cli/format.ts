/** Readable text for the CLI's answers (`--json` prints the values themselves). */
import { isJsonObject, type JsonObject } from '@agentd/rpc-frame';
import { inert, inertJson } from './inert-text.js';
import { paintState, type Tint, tint } from './term-style.js';
import { workspaceLine } from './workspace-text.js';

/** `--json` output: JSON escapes C0 itself; C1 and bidi controls are escaped too (inert-text.ts). */
export const pretty = (value: unknown): string =>
  `${inertJson(JSON.stringify(value, null, 2) ?? 'undefined')}\n`;

/** Terminal states that mean the run did not succeed (exit 1 for the commands that wait on it). */
export const FAILED_STATES: ReadonlySet<string> = new Set(['failed', 'timed_out', 'cancelled', 'lost']);

const str = (value: unknown): string => (value === undefined || value === null ? '' : String(value));

function duration(status: JsonObject): string {
  const start = Date.parse(str(status.startedAt));
  const end = status.endedAt === undefined ? Date.now() : Date.parse(str(status.endedAt));
  if (Number.isNaN(start) || Number.isNaN(end)) return '';
  const ms = Math.max(0, end - start);
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`;
}

/**
 * One run: a header line, its error, then its output (or, while it runs, the tail of its lines).
 * Every text that came from the agent is shown inert; `agentColours` lets its SGR colours through.
 */
export function statusText(status: unknown, colour = false, agentColours = false): string {
  if (!isJsonObject(status)) return pretty(status);
  const agent = (text: string) => inert(text, { colours: agentColours });
  const lines = [
    `${paintState(colour, str(status.state))}  ${str(status.agent)}  ${str(status.runId)}  (${duration(status)}${
      status.warm === true ? `, warm, ${str(status.turns)} turns` : ''
    })`,
    `handle ${str(status.handle)}`,
  ];
  if (isJsonObject(status.error)) {
    const e = status.error;
    lines.push(`error: ${agent(str(e.message))}${e.code === undefined ? '' : ` (${inert(str(e.code))})`}`);
    if (typeof e.stderrTail === 'string' && e.stderrTail !== '')
      lines.push(`stderr: ${agent(e.stderrTail.trimEnd())}`);
  }
  const workspace = workspaceLine(status.workspace);
  if (workspace !== undefined) lines.push(workspace);
  if (typeof status.output === 'string') lines.push('', agent(status.output));
  else if (Array.isArray(status.tail) && status.tail.length > 0) {
    lines.push(
      '',
      ...status.tail.map((l) =>
        isJsonObject(l) ? `${l.stream === 'stderr' ? '! ' : ''}${agent(str(l.text))}` : '',
      ),
    );
  }
  return `${lines.join('\n')}\n`;
}

const DAEMON_TINT = { running: 'green', paused: 'yellow', draining: 'red' } as const;

export function daemonStatusText(status: unknown, colour = false): string {
  if (!isJsonObject(status)) return pretty(status);
  const word = status.draining === true ? 'draining' : status.paused === true ? 'paused' : 'running';
  const state = tint(colour, DAEMON_TINT[word], word);
  const totals = isJsonObject(status.totals) ? status.totals : {};
  return `${[
    `agentd ${str(status.version)} (pid ${str(status.pid)}): ${state}, ${status.ready === true ? 'ready' : 'not ready'}`,
    `runs: ${str(status.running)} running, ${str(status.warm)} warm, ${str(status.tracked)} tracked`,
    `totals: ${Object.entries(totals)
      .map(([k, v]) => `${k} ${str(v)}`)
      .join(', ')}`,
    `agents: ${Array.isArray(status.agents) ? status.agents.join(', ') : ''} (default ${str(status.defaultAgent)}); exposure ${str(status.exposure)}`,
  ].join('\n')}\n`;
}

/** Columns padded to their widest cell; `paint` colours a padded body cell (widths count no escapes). */
function table(
  header: string[],
  rows: string[][],
  paint: (row: number, column: number, padded: string) => string = (_r, _c, padded) => padded,
): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] as string).length)));
  const lines = [header, ...rows].map((r, row) =>
    r
      .map((c, i) => {
        const padded = i === r.length - 1 ? c : c.padEnd(widths[i] as number);
        return row === 0 ? padded : paint(row - 1, i, padded);
      })
      .join('  ')
      .trimEnd(),
  );
  return `${lines.join('\n')}\n`;
}

/** The fleet part of `agentd runs` (cluster mode): one line per instance. */
function fleetText(fleet: JsonObject): string {
  const instances = Array.isArray(fleet.instances) ? fleet.instances.filter(isJsonObject) : [];
  const rows = instances.map((i) => [
    `${str(i.id)}${i.self === true ? ' (this)' : ''}`,
    i.alive === true ? 'alive' : 'lease expired',
    String(Array.isArray(i.runs) ? i.runs.length : 0),
    Array.isArray(i.listeners) ? i.listeners.join(' ') : '',
  ]);
  return `\nfleet (${instances.length} instances)\n${table(['INSTANCE', 'LIVENESS', 'LIVE RUNS', 'LISTENERS'], rows)}`;
}

/** `agentd runs`: one line per tracked run, then the fleet's instances when clustered. */
export function runsText(subagents: unknown[], fleet?: unknown, colour = false): string {
  const tail = isJsonObject(fleet) ? fleetText(fleet) : '';
  if (subagents.length === 0) return `no tracked runs\n${tail}`;
  const runs = subagents.filter(isJsonObject);
  const rows = runs.map((s) => [
    str(s.handle),
    str(s.runId),
    str(s.agent),
    `${str(s.state)}${s.warm === true ? ' (warm)' : ''}`,
    duration(s),
  ]);
  const STATE = 3;
  return `${table(['HANDLE', 'RUN', 'AGENT', 'STATE', 'TIME'], rows, (row, column, padded) =>
    column === STATE ? paintState(colour, str(runs[row]?.state), padded) : padded,
  )}${tail}`;
}

// `warn` too: a daemon of an older release still writes it.
const LEVEL_TINT: Record<string, Tint> = {
  debug: 'dim',
  warn: 'yellow',
  warning: 'yellow',
  error: 'red',
  critical: 'red',
  alert: 'red',
  emergency: 'red',
};

/** One agent://events entry as a log line (warnings and errors stand out on a terminal). */
export function eventText(event: unknown, colour = false): string {
  if (!isJsonObject(event)) return pretty(event);
  const { seq, time, level, msg, ...rest } = event;
  const fields = Object.keys(rest).length === 0 ? '' : ` ${inertJson(JSON.stringify(rest))}`;
  const levelText = str(level).padEnd(7);
  const tinted = LEVEL_TINT[str(level)];
  return `${str(seq).padStart(5)} ${str(time)} ${tinted === undefined ? levelText : tint(colour, tinted, levelText)} ${inert(str(msg))}${fields}\n`;
}

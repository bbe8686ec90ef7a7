#!/usr/bin/env node
/**
 * CLI: `node dist/supervisor/run-supervisor.js [--runs 50] [--events 200] [--interval 5] [--lead ms] [--reps 3] [--json file]
 * [--start spread|together] [--history on|off] [--cpu-prof DIR]`.
 * The supervisor case: RUNS concurrent runs of a protocol agent each streaming EVENTS progress
 * events; the latency from the agent's write to the MCP caller's notification (p50/p99), and the
 * daemon's CPU and RSS per run, beside the floor (a bare Node process reading the same agents),
 * as ratios in one run. Beside both, the two-hop floor: a bare Node relay between the same agents
 * and the same callers that appends each event to a log per run, as agentd's history does (not with
 * `--history off`); it shows what a relay's second hop and that append cost by themselves. Every
 * run must succeed and every event arrive, or the run fails (exit 1).
 * The agents start streaming at a set time (`--lead` ms after the spawns begin), so the spawning
 * of 50 Node processes is not what is measured. By default their starts are spread evenly over one
 * interval, as independent agents' events are: started together (`--start together`) every agent
 * writes within the same millisecond each interval, and the figures measure a burst of 50 events
 * queueing at the reader rather than an event's way through it. The floor, the two-hop floor and
 * agentd take turns `--reps` times and the medians are reported, so a shared machine's drift hits
 * all alike. The floor and the callers each run in a process of their own and read lines alike
 * (readline, JSON.parse).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { median } from '../stats.js';
import { now } from './go-signal.js';
import {
  cpuSeconds,
  type KernelCounts,
  kernelCounts,
  percentile,
  rssBytes,
  sampleRss,
} from './proc-stats.js';

const { values } = parseArgs({
  args: process.argv.slice(2).filter((arg) => arg !== '--'),
  options: {
    runs: { type: 'string', default: '50' },
    events: { type: 'string', default: '200' },
    interval: { type: 'string', default: '5' },
    lead: { type: 'string' },
    reps: { type: 'string', default: '3' },
    json: { type: 'string' },
    'cpu-prof': { type: 'string' },
    history: { type: 'string', default: 'on' },
    start: { type: 'string', default: 'spread' },
  },
});
const RUNS = Number(values.runs);
const EVENTS = Number(values.events);
const INTERVAL = Number(values.interval);
const LEAD = Number(values.lead ?? 1000 + RUNS * 80);
const REPS = Number(values.reps);
/** `--history off`: the daemon keeps no run history (to see what recording costs; the default is the daemon's own: on). */
const HISTORY = values.history !== 'off';
if (values.history !== 'on' && values.history !== 'off')
  throw new Error(`--history is on or off, not ${JSON.stringify(values.history)}`);
if (values.start !== 'spread' && values.start !== 'together')
  throw new Error(`--start is spread or together, not ${JSON.stringify(values.start)}`);
/** Run i starts streaming SPREAD × i / RUNS ms after the first. */
const SPREAD = values.start === 'spread' ? INTERVAL : 0;
const AGENT = fileURLToPath(new URL('./stream-agent.js', import.meta.url));
const FLOOR = fileURLToPath(new URL('./stream-floor.js', import.meta.url));
const CALLER = fileURLToPath(new URL('./stream-caller.js', import.meta.url));
const RELAY = fileURLToPath(new URL('./stream-relay.js', import.meta.url));
/** `--cpu-prof DIR`: the daemon and the floor write V8 CPU profiles there (for finding where time goes; not for figures). */
const PROFILE_ARGS =
  values['cpu-prof'] === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${values['cpu-prof']}`];
const AGENTD_CLI = fileURLToPath(new URL('../../../../apps/agentd/dist/cli.js', import.meta.url));

interface Side {
  p50Ms: number;
  p99Ms: number;
  events: number;
  cpuSeconds: number;
  /** CPU seconds from the moment the agents start streaming to the end: the per-event path, without the spawns. */
  streamCpuSeconds: number;
  /** agentd's side only: the callers' process, streaming (it reads as the floor does: its cost is not agentd's). */
  callerStreamCpuSeconds: number;
  /** Streaming, per event: system calls that read and that write, and sleeps of the main thread. */
  readsPerEvent: number;
  writesPerEvent: number;
  sleepsPerEvent: number;
  /** Peak RSS while streaming minus the idle RSS before, per run. */
  rssPerRunBytes: number;
  idleRssBytes: number;
}

function summarise(
  latencies: number[],
  cpu: { total: number; streaming: number; caller: number },
  kernel: KernelCounts,
  idle: number,
  peak: number,
): Side {
  const sorted = latencies.sort((a, b) => a - b);
  const events = RUNS * EVENTS;
  return {
    readsPerEvent: kernel.reads / events,
    writesPerEvent: kernel.writes / events,
    sleepsPerEvent: kernel.sleeps / events,
    p50Ms: percentile(sorted, 50),
    p99Ms: percentile(sorted, 99),
    events: sorted.length,
    cpuSeconds: cpu.total,
    streamCpuSeconds: cpu.streaming,
    callerStreamCpuSeconds: cpu.caller,
    rssPerRunBytes: (peak - idle) / RUNS,
    idleRssBytes: idle,
  };
}

function expectAll(what: string, received: number): void {
  if (received !== RUNS * EVENTS) throw new Error(`${what}: ${received} of ${RUNS * EVENTS} events arrived`);
}

/**
 * Starts a reader process (the floor, or agentd's callers), waits for its `ready`, then measures
 * process `pid` (the reader itself, or the daemon) while the reader streams: CPU, idle and peak
 * RSS, and the latencies the reader reports.
 */
async function measureReader(
  args: readonly string[],
  measured: number | undefined,
  what: string,
): Promise<Side> {
  const reader = spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: reader.stdout as NonNullable<ChildProcess['stdout']> })[
    Symbol.asyncIterator
  ]();
  if ((await lines.next()).value !== 'ready') throw new Error(`${what}: the reader did not start`);
  const pid = measured ?? (reader.pid as number);
  const idle = rssBytes(pid);
  const cpuBefore = cpuSeconds(pid);
  const stopSampling = sampleRss(pid);
  // The spawns happen in the lead time; the CPU from the streaming start on is the per-event path's.
  const readerPid = reader.pid as number;
  let cpuAtStart = Number.NaN;
  let readerCpuAtStart = Number.NaN;
  let kernelAtStart: KernelCounts | undefined;
  const startTimer = setTimeout(() => {
    cpuAtStart = cpuSeconds(pid);
    readerCpuAtStart = cpuSeconds(readerPid);
    kernelAtStart = kernelCounts(pid);
  }, LEAD);
  reader.stdin?.write(`go ${now() + LEAD} ${SPREAD}\n`);
  const reply = (await lines.next()).value;
  clearTimeout(startTimer);
  const cpuAfter = cpuSeconds(pid);
  const kernelAfter = kernelCounts(pid);
  const kernel = {
    reads: kernelAfter.reads - (kernelAtStart?.reads ?? Number.NaN),
    writes: kernelAfter.writes - (kernelAtStart?.writes ?? Number.NaN),
    sleeps: kernelAfter.sleeps - (kernelAtStart?.sleeps ?? Number.NaN),
  };
  const caller = measured === undefined ? Number.NaN : cpuSeconds(readerPid) - readerCpuAtStart;
  const cpu = { total: cpuAfter - cpuBefore, streaming: cpuAfter - cpuAtStart, caller };
  const peak = stopSampling();
  await once(reader, 'exit');
  if (typeof reply !== 'string') throw new Error(`${what}: the reader ended without a report`);
  const report = JSON.parse(reply) as { received: number; latencies: number[] };
  expectAll(what, report.received);
  return summarise(report.latencies, cpu, kernel, idle, peak);
}

function measureFloor(): Promise<Side> {
  return measureReader(
    [...PROFILE_ARGS, FLOOR, String(RUNS), String(EVENTS), String(INTERVAL)],
    undefined,
    'floor',
  );
}

/** Resolves once `proc` printed every one of `markers` on stdout; rejects if it exits first. */
async function printed(proc: ChildProcess, what: string, markers: readonly string[]): Promise<void> {
  let text = '';
  proc.stdout?.setEncoding('utf8');
  await new Promise<void>((resolve, reject) => {
    proc.stdout?.on('data', (chunk: string) => {
      text += chunk;
      if (markers.every((marker) => text.includes(marker))) resolve();
    });
    proc.once('exit', (code) => reject(new Error(`${what} exited (${code}) before listening`)));
  });
}

async function startAgentd(dir: string): Promise<{ proc: ChildProcess; socket: string }> {
  const config = join(dir, 'agentd.json');
  const socket = join(dir, 'agentd.sock');
  await writeFile(
    config,
    JSON.stringify({
      exposure: 'classic',
      limits: { maxConcurrentRuns: RUNS + 8 },
      ...(HISTORY ? {} : { history: { enabled: false } }),
      agents: { stream: { mode: 'protocol', command: process.execPath, args: [AGENT] } },
    }),
  );
  const proc = spawn(
    process.execPath,
    [...PROFILE_ARGS, AGENTD_CLI, '--config', config, '--serve', `unix:${socket}`],
    {
      env: { PATH: process.env.PATH ?? '', HOME: dir, XDG_RUNTIME_DIR: dir },
      stdio: ['ignore', 'pipe', 'ignore'],
    },
  );
  await printed(proc, 'agentd', ['listening on:', socket]);
  return { proc, socket };
}

/** The relay keeps a log per run when agentd keeps history: the same duty per event. */
async function startRelay(dir: string): Promise<{ proc: ChildProcess; socket: string }> {
  const socket = join(dir, 'relay.sock');
  await rm(socket, { force: true });
  const args = [RELAY, socket, AGENT, ...(HISTORY ? [await mkdtemp(join(dir, 'relay-logs-'))] : [])];
  const proc = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  await printed(proc, 'the relay', ['listening']);
  return { proc, socket };
}

/** agentd's callers against a server (agentd, or the relay), whose own CPU and RSS are measured. */
async function measureServer(server: { proc: ChildProcess; socket: string }, what: string): Promise<Side> {
  try {
    const args = [CALLER, server.socket, 'stream', String(RUNS), String(EVENTS), String(INTERVAL)];
    return await measureReader(args, server.proc.pid as number, what);
  } finally {
    server.proc.kill('SIGTERM');
    await once(server.proc, 'exit');
  }
}

const fmt = (n: number, digits = 2): string => n.toFixed(digits);
const mb = (bytes: number): string => `${fmt(bytes / 1024 / 1024)} MB`;
const perEvent = (side: Side): string => fmt((side.streamCpuSeconds * 1e6) / (RUNS * EVENTS), 1);

/** Each figure's median over the repetitions. */
function medianSide(sides: readonly Side[]): Side {
  const of = (key: keyof Side) => median(sides.map((side) => side[key]));
  return {
    p50Ms: of('p50Ms'),
    p99Ms: of('p99Ms'),
    events: of('events'),
    cpuSeconds: of('cpuSeconds'),
    streamCpuSeconds: of('streamCpuSeconds'),
    callerStreamCpuSeconds: of('callerStreamCpuSeconds'),
    readsPerEvent: of('readsPerEvent'),
    writesPerEvent: of('writesPerEvent'),
    sleepsPerEvent: of('sleepsPerEvent'),
    rssPerRunBytes: of('rssPerRunBytes'),
    idleRssBytes: of('idleRssBytes'),
  };
}

function render(floor: Side, relay: Side, agentd: Side, load: [number, number]): string {
  const row = (name: string, side: Side) =>
    `| ${name} | ${fmt(side.p50Ms)} | ${fmt(side.p99Ms)} | ${fmt((side.cpuSeconds * 1000) / RUNS, 1)} | ${perEvent(side)} | ${fmt(side.readsPerEvent)} / ${fmt(side.writesPerEvent)} / ${fmt(side.sleepsPerEvent)} | ${mb(side.rssPerRunBytes)} | ${mb(side.idleRssBytes)} |`;
  return [
    `supervisor case: ${RUNS} concurrent runs × ${EVENTS} events every ${INTERVAL} ms (${RUNS * EVENTS} events), starts ${values.start === 'spread' ? 'spread over an interval' : 'together'}, medians of ${REPS} alternating reps${HISTORY ? '' : ', daemon history off'}, Node ${process.version}, ${cpus().length} cores, load ${fmt(load[0])} → ${fmt(load[1])}`,
    '',
    '| side | p50 ms | p99 ms | CPU ms/run | streaming CPU µs/event | reads / writes / sleeps per event | RSS/run | idle RSS |',
    '|---|---|---|---|---|---|---|---|',
    row('floor (bare Node reader)', floor),
    row(`two-hop floor (agent → bare Node relay${HISTORY ? ' + log per run' : ''} → MCP caller)`, relay),
    row('agentd (agent → daemon → MCP caller)', agentd),
    '',
    `ratios agentd/floor: p50 ${fmt(agentd.p50Ms / floor.p50Ms)}x (goal ≤ 2x), p99 ${fmt(agentd.p99Ms / floor.p99Ms)}x, CPU ${fmt(agentd.cpuSeconds / floor.cpuSeconds)}x (streaming ${fmt(agentd.streamCpuSeconds / floor.streamCpuSeconds)}x; agentd's callers, who read as the floor does, ${fmt(agentd.callerStreamCpuSeconds / floor.streamCpuSeconds)}x); agentd RSS per streaming run ${mb(agentd.rssPerRunBytes)} (goal < 2 MB)`,
    `two-hop floor/floor: p50 ${fmt(relay.p50Ms / floor.p50Ms)}x, streaming CPU ${fmt(relay.streamCpuSeconds / floor.streamCpuSeconds)}x; agentd/two-hop floor: p50 ${fmt(agentd.p50Ms / relay.p50Ms)}x, streaming CPU ${fmt(agentd.streamCpuSeconds / relay.streamCpuSeconds)}x`,
  ].join('\n');
}

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'agentd-bench-supervisor-'));
  const loadBefore = loadavg()[0] ?? Number.NaN;
  try {
    const floors: Side[] = [];
    const relays: Side[] = [];
    const agentds: Side[] = [];
    for (let rep = 1; rep <= REPS; rep += 1) {
      floors.push(await measureFloor());
      relays.push(await measureServer(await startRelay(dir), 'the relay'));
      agentds.push(await measureServer(await startAgentd(dir), 'agentd'));
      const [f, r, a] = [floors.at(-1), relays.at(-1), agentds.at(-1)] as [Side, Side, Side];
      process.stderr.write(
        `rep ${rep}/${REPS}: p50 floor ${fmt(f.p50Ms)} ms, two-hop floor ${fmt(r.p50Ms)} ms, agentd ${fmt(a.p50Ms)} ms; streaming CPU floor ${perEvent(f)}, relay ${perEvent(r)}, agentd ${perEvent(a)} (its callers ${fmt((a.callerStreamCpuSeconds * 1e6) / (RUNS * EVENTS), 1)}) µs/event; load ${fmt(loadavg()[0] ?? Number.NaN)}\n`,
      );
    }
    const [floor, relay, agentd] = [medianSide(floors), medianSide(relays), medianSide(agentds)];
    process.stdout.write(`${render(floor, relay, agentd, [loadBefore, loadavg()[0] ?? Number.NaN])}\n`);
    if (values.json !== undefined)
      await writeFile(
        values.json,
        JSON.stringify({ floor, relay, agentd, floors, relays, agentds }, null, 2),
      );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

await main();

/** The self-MCP resources: what each agent:// URI reads as, who may see it, whether it is subscribable. */
import type { JsonObject } from '@agentd/rpc-frame';
import type { Peer } from '@agentd/server';
import type { EventRing } from '../log/event-ring.js';
import { parseLogLevel } from '../log/log-level.js';
import { type AgentUri, parseAgentUri } from './agent-uri.js';
import { HistoryUnavailable, readLogs, readRuns } from './history-resources.js';
import { readableByRunId } from './run-access.js';
import type { RunIndex } from './run-index.js';

export interface ResourceHost {
  /** Runs by handle or run id wherever they run (this process, or the fleet). */
  runs(): RunIndex;
  statusBody(): JsonObject;
  capabilitiesBody(peer: Peer): JsonObject;
  /** One page of the inventory: `cursor` is the previous page's `nextCursor`. */
  inventoryBody(cursor?: string): Promise<JsonObject>;
  configEffectiveBody(): JsonObject;
  ring(): EventRing;
}

/** A fixed resource (listed) or a template (never listed: handles are capabilities). */
export interface ResourceSpec {
  name: string;
  /** `agent://status` for fixed resources, `agent://run/{runId}` for templates. */
  uri: string;
  template: boolean;
  description: string;
  /** Management-only: hidden from, and unreadable by, stdio peers (enforced by ClientFilters). */
  management: boolean;
  subscribable: boolean;
  /** A template for reads with a query string, when the resource takes one. */
  queryTemplate?: string;
}

export const RESOURCE_SPECS: readonly ResourceSpec[] = [
  {
    name: 'status',
    uri: 'agent://status',
    template: false,
    management: false,
    subscribable: false,
    description: 'Daemon status (poll it; not subscribable, it changes every millisecond).',
  },
  {
    name: 'capabilities',
    uri: 'agent://capabilities',
    template: false,
    management: false,
    subscribable: true,
    description: 'What this agentd offers: agents, limits, operations. Updated on each config reload.',
  },
  {
    name: 'run',
    uri: 'agent://run/{runId}',
    template: true,
    management: false,
    subscribable: true,
    description:
      'One run by its run id: readable by the peer that started it and by operators (to anyone else it does not exist). Updated on each state change, from spawn to terminal.',
  },
  {
    name: 'subagent',
    uri: 'agent://subagent/{handle}',
    template: true,
    management: false,
    subscribable: true,
    description:
      'A subagent by handle. Subscribe while it runs: one update when it reaches a terminal state.',
  },
  {
    name: 'session',
    uri: 'agent://session/{handle}',
    template: true,
    management: false,
    subscribable: true,
    description: 'A warm session by handle. Updated at each turn boundary and when it ends.',
  },
  {
    name: 'runs',
    uri: 'agent://runs',
    template: false,
    management: false,
    subscribable: false,
    description:
      'Run history, kept across restarts: summaries newest first (a restricted peer sees only the runs it started), paged by ?cursor=nextCursor, filtered by agent, state, since (ISO time) and text (run id, instruction, output, error).',
    queryTemplate: 'agent://runs{?cursor,agent,state,since,limit,text}',
  },
  {
    name: 'logs',
    uri: 'agent://logs/{handle}',
    template: true,
    management: false,
    subscribable: false,
    description:
      "A run's whole stored event log by handle (output lines, tool calls, permissions, usage, turns), a page at a time: ?after=next.",
    queryTemplate: 'agent://logs/{handle}{?after}',
  },
  {
    name: 'inventory',
    uri: 'agent://inventory',
    template: false,
    management: true,
    subscribable: true,
    description:
      'Tracked runs as summaries with their handles (never their output), paged by ?cursor=nextCursor, plus listeners and totals (operators only).',
    queryTemplate: 'agent://inventory{?cursor}',
  },
  {
    name: 'config-effective',
    uri: 'agent://config/effective',
    template: false,
    management: true,
    subscribable: true,
    description: 'The effective configuration, secrets redacted. Updated on each applied reload.',
  },
  {
    name: 'events',
    uri: 'agent://events',
    template: false,
    management: true,
    subscribable: true,
    description:
      "Bounded ring of structured log events; query ?after=SEQ&level=L, L one of MCP's eight syslog levels (warn means warning).",
    queryTemplate: 'agent://events{?after,level}',
  },
];

/** Which spec serves a parsed URI. */
function specFor(uri: AgentUri): ResourceSpec {
  const name = uri.kind;
  return RESOURCE_SPECS.find((s) => s.name === name) as ResourceSpec;
}

export class ResourceError extends Error {
  override name = 'ResourceError';
  constructor(
    readonly reason: 'not_found' | 'not_subscribable',
    message: string,
  ) {
    super(message);
  }
}

/** A run read by its id: everything but the handle, which is a capability. */
function runView(status: JsonObject): JsonObject {
  const { handle: _handle, ...rest } = status;
  return rest;
}

function notFound(text: string): never {
  throw new ResourceError('not_found', `resource not found: ${text}`);
}

export async function readResource(host: ResourceHost, text: string, peer: Peer): Promise<JsonObject> {
  const uri = parseAgentUri(text) ?? notFound(text);
  const runs = host.runs();
  switch (uri.kind) {
    case 'status':
      return host.statusBody();
    case 'capabilities':
      return host.capabilitiesBody(peer);
    case 'inventory':
      return host.inventoryBody(uri.cursor);
    case 'config-effective':
      return host.configEffectiveBody();
    case 'events': {
      const level = uri.level === undefined ? undefined : (parseLogLevel(uri.level) ?? notFound(text));
      return host.ring().read({
        after: uri.after,
        ...(level === undefined ? {} : { level }),
      }) as unknown as JsonObject;
    }
    case 'run':
      return runView(readableByRunId(peer, await runs.findByRunId(uri.id)) ?? notFound(text));
    case 'subagent':
      return (await runs.find(uri.id)) ?? notFound(text);
    case 'session': {
      const status = await runs.find(uri.id);
      return status?.warm === true ? status : notFound(text);
    }
    case 'runs':
    case 'logs':
      return readHistory(runs, uri, text, peer);
  }
}

async function readHistory(
  runs: RunIndex,
  uri: Extract<AgentUri, { kind: 'runs' | 'logs' }>,
  text: string,
  peer: Peer,
): Promise<JsonObject> {
  try {
    if (uri.kind === 'runs') return await readRuns(runs, uri.params, peer);
    return (await readLogs(runs, uri.id, uri.after)) ?? notFound(text);
  } catch (error) {
    if (error instanceof HistoryUnavailable)
      throw new ResourceError('not_found', `${text}: ${error.message}`);
    throw error;
  }
}

/** Throws ResourceError when the URI cannot be subscribed (never subscribable, unknown, or already final). */
export async function checkSubscribable(host: ResourceHost, text: string, peer: Peer): Promise<void> {
  const uri = parseAgentUri(text) ?? notFound(text);
  const spec = specFor(uri);
  if (!spec.subscribable) {
    throw new ResourceError('not_subscribable', `${spec.uri} is not subscribable; read it when you need it`);
  }
  const runs = host.runs();
  if (uri.kind === 'run' && readableByRunId(peer, await runs.findByRunId(uri.id)) === undefined)
    notFound(text);
  if (uri.kind === 'subagent') {
    const status = (await runs.find(uri.id)) ?? notFound(text);
    if (status.terminal === true) {
      throw new ResourceError(
        'not_subscribable',
        `${text} is already ${String(status.state)}; read it instead (it will not change again)`,
      );
    }
  }
  if (uri.kind === 'session') {
    const status = await runs.find(uri.id);
    if (status?.warm !== true) notFound(text);
    if (status.terminal === true)
      throw new ResourceError(
        'not_subscribable',
        `${text} has ended (${String(status.state)}); read it instead`,
      );
  }
}

/** What the agent:// resources read: status, capabilities, inventory, effective config, events. */
import type { JsonObject } from '@agentd/rpc-frame';
import type { Peer } from '@agentd/server';
import type { EventRing } from '../log/event-ring.js';
import type { OperationSpec } from '../self-mcp/operation-spec.js';
import { RESOURCE_SPECS, type ResourceHost } from '../self-mcp/resources.js';
import type { RunIndex } from '../self-mcp/run-index.js';
import { runSummary } from '../self-mcp/run-view.js';
import { seesManagement } from '../self-mcp/trust.js';
import type { Supervisor } from '../supervisor/index.js';
import type { RunningConfig } from './running-config.js';

/** Runs per inventory page: with bounded rows, a page stays well under any client's frame limit. */
const INVENTORY_PAGE_RUNS = 100;

export interface DaemonResourcesParts {
  version: string;
  supervisor: Supervisor;
  runs: RunIndex;
  running: RunningConfig;
  ring: EventRing;
  status: () => JsonObject;
  /** Operations this peer can see (the self-MCP's trust filters decide). */
  visibleOperations: (peer: Peer) => OperationSpec[];
  /** The bound listeners, for the inventory. */
  listeners: () => { target: string; address: string }[];
}

export class DaemonResources implements ResourceHost {
  constructor(private readonly parts: DaemonResourcesParts) {}

  runs(): RunIndex {
    return this.parts.runs;
  }

  ring(): EventRing {
    return this.parts.ring;
  }

  statusBody(): JsonObject {
    return this.parts.status();
  }

  capabilitiesBody(peer: Peer): JsonObject {
    const config = this.parts.running.config;
    const management = seesManagement(peer);
    return {
      contractVersion: '1.0',
      agentVersion: this.parts.version,
      exposure: config.exposure,
      defaultAgent: config.defaultAgent,
      agents: Object.entries(config.agents).map(([name, p]) => ({
        name,
        mode: p.mode,
        ...(p.description === undefined ? {} : { description: p.description }),
      })),
      limits: { ...config.limits },
      operations: this.parts
        .visibleOperations(peer)
        .map((o) => ({ kind: o.kind, id: o.id, description: o.description })),
      resources: RESOURCE_SPECS.filter((r) => management || !r.management).map((r) => ({
        uri: r.uri,
        subscribable: r.subscribable,
        description: r.description,
      })),
    };
  }

  /**
   * One page of run summaries (never their output: that is read by handle), oldest first by run
   * id, which sorts by start time; the cursor is the last run id of the page before.
   */
  async inventoryBody(cursor?: string): Promise<JsonObject> {
    const { supervisor, runs } = this.parts;
    const s = supervisor.snapshot();
    const fleet = await runs.fleet();
    const after = supervisor
      .list()
      .filter((r) => cursor === undefined || r.runId > cursor)
      .sort((a, b) => (a.runId < b.runId ? -1 : a.runId > b.runId ? 1 : 0));
    const page = after.slice(0, INVENTORY_PAGE_RUNS);
    const last = page.at(-1);
    return {
      snapshot: JSON.parse(JSON.stringify(s)) as JsonObject,
      listeners: this.parts.listeners(),
      subagents: page.map(runSummary),
      ...(after.length > page.length && last !== undefined ? { nextCursor: last.runId } : {}),
      ...(fleet === undefined ? {} : { fleet }),
    };
  }

  configEffectiveBody(): JsonObject {
    return this.parts.running.effectiveBody();
  }
}

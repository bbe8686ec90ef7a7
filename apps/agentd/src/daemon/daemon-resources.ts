/** What the agent:// resources read: status, capabilities, inventory, effective config, events. */
import type { JsonObject } from '@agentd/rpc-frame';
import type { Peer } from '@agentd/server';
import type { EventRing } from '../log/event-ring.js';
import type { Supervisor } from '../supervisor/index.js';
import type { OperationSpec } from './operation-spec.js';
import { RESOURCE_SPECS, type ResourceHost } from './resources.js';
import type { RunIndex } from './run-index.js';
import type { RunningConfig } from './running-config.js';
import { statusJson } from './status-json.js';
import { seesManagement } from './trust.js';

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

  async inventoryBody(): Promise<JsonObject> {
    const { supervisor, runs } = this.parts;
    const s = supervisor.snapshot();
    const fleet = await runs.fleet();
    return {
      snapshot: JSON.parse(JSON.stringify(s)) as JsonObject,
      listeners: this.parts.listeners(),
      subagents: supervisor.list().map(statusJson),
      ...(fleet === undefined ? {} : { fleet }),
    };
  }

  configEffectiveBody(): JsonObject {
    return this.parts.running.effectiveBody();
  }
}

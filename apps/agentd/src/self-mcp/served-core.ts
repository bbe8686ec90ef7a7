/** The self-MCP served by one ServerCore: list_changed and task notifications wired, metrics when on. */
import { createServerCore, type ServerCore } from '@agentd/server';
import { canonicalizeUri, SubscriptionRegistry } from '@agentd/subscriptions';
import type { ClusterLink } from '../cluster/cluster-link.js';
import type { ClusterNode } from '../cluster/cluster-node.js';
import type { AgentdConfig } from '../config/config-schema.js';
import type { JsonLineLogger } from '../log/logger.js';
import { AgentdMetrics } from '../metrics/agentd-metrics.js';
import type { Supervisor } from '../supervisor/index.js';
import { subscriptionKey } from './agent-uri.js';
import { buildOperations, type OperationHost } from './operations.js';
import type { ResourceHost } from './resources.js';
import { createSelfMcp, type SelfMcp } from './self-mcp.js';

export interface SelfMcpCoreParts {
  config: AgentdConfig;
  version: string;
  logger: JsonLineLogger;
  supervisor: Supervisor;
  operations: OperationHost;
  resources: ResourceHost;
  /** The fleet, when `cluster` is configured: shared task store, MRTR key and notification bus. */
  link: ClusterLink | undefined;
  cluster: ClusterNode | undefined;
}

export interface SelfMcpCore {
  selfMcp: SelfMcp;
  core: ServerCore;
  /** Only when `metrics` is configured: no cost otherwise. */
  metrics: AgentdMetrics | undefined;
}

/** What an MCP client's model is told about agentd at connection time. */
function instructionsFor(exposure: AgentdConfig['exposure']): string {
  const how =
    exposure === 'codemode'
      ? "Call `search` to see the operations, then `execute` code such as `return await agentd.subagent.spawn({ instruction: 'echo hi' })`; chain several calls in one `execute`."
      : 'Call `command_subagent.spawn` with an instruction; `query_subagent.status` and `command_subagent.cancel` take the handle it returns.';
  return `agentd supervises subagents: agent processes started from named profiles. ${how} A sync spawn waits for the result; async returns a handle at once (poll it, or subscribe to agent://subagent/<handle> for one update when it ends); warm keeps a live session for subagent.send.`;
}

function metricsFor(parts: SelfMcpCoreParts, selfMcp: () => SelfMcp): AgentdMetrics | undefined {
  const { cluster, link, supervisor } = parts;
  if (parts.config.metrics === undefined) return undefined;
  const metrics = new AgentdMetrics({
    runs: () => supervisor.list(),
    codeMode: () => selfMcp().codeModeStats(),
    cluster: () =>
      cluster === undefined || link === undefined
        ? undefined
        : { failedLeaseRenewals: cluster.failedLeaseRenewals, malformedMessages: link.connection.malformed },
  });
  supervisor.on('status', (status) => metrics.observeRun(status));
  supervisor.on('event', (handle, event) => metrics.observeEvent(handle, event));
  return metrics;
}

export function createSelfMcpCore(parts: SelfMcpCoreParts): SelfMcpCore {
  const { config, link, logger } = parts;
  const metrics = metricsFor(parts, () => selfMcp);
  const selfMcp = createSelfMcp({
    exposure: config.exposure,
    codeModeWallMs: config.codeModeWallMs,
    codeModeLimits: config.codeMode,
    operations: () => buildOperations(parts.operations),
    operationScopes: config.auth.operationScopes,
    ...(config.auth.oauth?.stepUp === true ? { stepUp: true } : {}),
    resources: parts.resources,
    logger,
    ...(metrics === undefined ? {} : { onExecuted: (outcome) => metrics.observeExecution(outcome) }),
    ...(link === undefined ? {} : { taskStore: link.taskStore, requestStateKey: link.requestStateKey }),
  });
  const registry = new SubscriptionRegistry({
    canonicalize: (uri) => subscriptionKey(canonicalizeUri(uri)),
    // A fleet: every replica's notifications reach every replica's subscribers.
    ...(link === undefined ? {} : { bus: link.bus }),
  });
  const core = createServerCore({
    handler: metrics?.instrument(selfMcp.handler) ?? selfMcp.handler,
    serverInfo: { name: 'agentd', version: parts.version, title: 'agentd: supervisor of agent runs' },
    registry,
    logger,
    lifecycle: { instructions: instructionsFor(config.exposure) },
    maxBufferedInputBytes: config.connections.maxBufferedInputBytes,
  });
  selfMcp.onSurfaceChanged((kinds) => {
    for (const kind of kinds) core.notifyListChanged(kind);
  });
  selfMcp.onTaskStatus((event) =>
    core.notifyTaskStatus(event.taskId, event.message, event.creatorConnectionId),
  );
  return { selfMcp, core, metrics };
}

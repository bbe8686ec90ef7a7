/** The running daemon: config, supervisor, self-MCP, listeners, hot reload and graceful shutdown. */
import { taskStatusNotification } from '@agentd/dispatch';
import type { JsonObject } from '@agentd/rpc-frame';
import { createServerCore, type Peer, type ServerCore } from '@agentd/server';
import { canonicalizeUri, SubscriptionRegistry } from '@agentd/subscriptions';
import type { ClusterLink } from '../cluster/cluster-link.js';
import { ClusterNode, sessionIdPrefix } from '../cluster/cluster-node.js';
import type { RunChange } from '../cluster/shared-run.js';
import { ConfigError, formatIssue } from '../config/config-error.js';
import type { AgentdConfig } from '../config/config-schema.js';
import { redactConfig } from '../config/redact-config.js';
import { type ConfigInputs, type ResolvedConfig, resolveConfig } from '../config/resolve-config.js';
import { EventRing } from '../log/event-ring.js';
import type { JsonLineLogger } from '../log/logger.js';
import { AgentdMetrics } from '../metrics/agentd-metrics.js';
import { type MetricsServer, serveMetrics } from '../metrics/metrics-server.js';
import { parseMetricsTarget } from '../metrics/metrics-target.js';
import { type SubagentStatus, Supervisor } from '../supervisor/index.js';
import { subscriptionKey } from './agent-uri.js';
import { diffConfig } from './config-diff.js';
import { ConfigWatcher } from './config-watcher.js';
import { type Listener, startListener } from './listeners.js';
import { buildOperations, type OperationHost } from './operations.js';
import { supervisorConfig } from './profiles.js';
import { RESOURCE_SPECS, type ResourceHost } from './resources.js';
import { localRunIndex, type RunIndex } from './run-index.js';
import { createSelfMcp, type SelfMcp } from './self-mcp.js';
import { statusJson } from './status-json.js';
import { listenerTrust, seesManagement } from './trust.js';

export interface DaemonOptions {
  inputs: ConfigInputs;
  resolved: ResolvedConfig;
  logger: JsonLineLogger;
  version: string;
  /** The fleet's Redis, opened by the caller when `cluster` is configured (closed on shutdown). */
  link?: ClusterLink;
}

/** What an MCP client's model is told about agentd at connection time. */
function instructionsFor(exposure: AgentdConfig['exposure']): string {
  const how =
    exposure === 'codemode'
      ? "Call `search` to see the operations, then `execute` code such as `return await agentd.subagent.spawn({ instruction: 'echo hi' })`; chain several calls in one `execute`."
      : 'Call `command_subagent.spawn` with an instruction; `query_subagent.status` and `command_subagent.cancel` take the handle it returns.';
  return `agentd supervises subagents: agent processes started from named profiles. ${how} A sync spawn waits for the result; async returns a handle at once (poll it, or subscribe to agent://subagent/<handle> for one update when it ends); warm keeps a live session for subagent.send.`;
}

/** Events are coalesced so a chatty log does not flood agent://events subscribers. */
const EVENTS_NOTIFY_MS = 100;

export class Daemon implements OperationHost, ResourceHost {
  readonly version: string;
  readonly startedAt = new Date();
  readonly #logger: JsonLineLogger;
  readonly #inputs: ConfigInputs;
  readonly #ring: EventRing;
  readonly #supervisor: Supervisor;
  readonly #core: ServerCore;
  readonly #selfMcp: SelfMcp;
  /** Only when `metrics` is configured: no cost otherwise. */
  readonly #metrics: AgentdMetrics | undefined;
  #metricsServer: MetricsServer | undefined;
  /** The fleet, when `cluster` is configured (joined in listen()). */
  readonly #cluster: ClusterNode | undefined;
  readonly #link: ClusterLink | undefined;
  #runs: RunIndex;
  #config: AgentdConfig;
  #configPath: string | undefined;
  /** Serve targets and TLS material are fixed at startup (changing them needs a restart). */
  readonly #targets: ResolvedConfig['targets'];
  readonly #tls: ResolvedConfig['tls'];
  #generation = 1;
  #loadedAt = new Date();
  #pendingRestart = new Set<string>();
  #listeners: Listener[] = [];
  #watcher: ConfigWatcher | undefined;
  #eventsTimer: NodeJS.Timeout | undefined;
  #shutdown: Promise<void> | undefined;
  #drainStartedAt: string | undefined;
  #drainDeadlineMs: number | undefined;
  #exit!: (code: number) => void;
  /** Resolves with the process exit code once the daemon has stopped. */
  readonly exited: Promise<number>;

  constructor(options: DaemonOptions) {
    this.version = options.version;
    this.#logger = options.logger;
    this.#inputs = options.inputs;
    this.#config = options.resolved.config;
    this.#configPath = options.resolved.configPath;
    this.#targets = options.resolved.targets;
    this.#tls = options.resolved.tls;
    this.exited = new Promise((resolve) => {
      this.#exit = resolve;
    });
    this.#ring = new EventRing(this.#config.eventsRing);
    this.#logger.setRing(this.#ring);
    this.#supervisor = new Supervisor({
      ...supervisorConfig(this.#config),
      logger: this.#logger,
    });
    this.#link = options.link;
    const cluster = this.#config.cluster;
    this.#cluster =
      cluster === undefined || options.link === undefined
        ? undefined
        : new ClusterNode({
            config: cluster,
            link: options.link.connection,
            supervisor: this.#supervisor,
            logger: this.#logger,
            version: this.version,
            listeners: () => this.#listeners.map((l) => l.address),
            onLost: (change) => this.#notifyLost(change),
            tasks: options.link.taskStore,
            // Only a 2025-11-25 task notifies its creator's session (wherever the bus finds it).
            onTaskFailed: (record) =>
              this.#core.notifyTaskStatus(
                record.taskId,
                taskStatusNotification(record),
                record.era === 'legacy' ? record.creator : undefined,
              ),
          });
    this.#runs = this.#cluster ?? localRunIndex(() => this.#supervisor);
    const registry = new SubscriptionRegistry({
      canonicalize: (uri) => subscriptionKey(canonicalizeUri(uri)),
      // A fleet: every replica's notifications reach every replica's subscribers.
      ...(options.link === undefined ? {} : { bus: options.link.bus }),
    });
    this.#metrics =
      this.#config.metrics === undefined
        ? undefined
        : new AgentdMetrics({
            runs: () => this.#supervisor.list(),
            codeMode: () => this.#selfMcp.codeModeStats(),
            cluster: () =>
              this.#cluster === undefined || this.#link === undefined
                ? undefined
                : {
                    failedLeaseRenewals: this.#cluster.failedLeaseRenewals,
                    malformedMessages: this.#link.connection.malformed,
                  },
          });
    const metrics = this.#metrics;
    this.#selfMcp = createSelfMcp({
      exposure: this.#config.exposure,
      codeModeWallMs: this.#config.codeModeWallMs,
      codeModeLimits: this.#config.codeMode,
      operations: () => buildOperations(this),
      operationScopes: this.#config.auth.operationScopes,
      ...(this.#config.auth.oauth?.stepUp === true ? { stepUp: true } : {}),
      resources: this,
      logger: this.#logger,
      ...(metrics === undefined ? {} : { onExecuted: (outcome) => metrics.observeExecution(outcome) }),
      ...(options.link === undefined
        ? {}
        : { taskStore: options.link.taskStore, requestStateKey: options.link.requestStateKey }),
    });
    this.#core = createServerCore({
      handler: metrics?.instrument(this.#selfMcp.handler) ?? this.#selfMcp.handler,
      serverInfo: { name: 'agentd', version: this.version, title: 'agentd: supervisor of agent runs' },
      registry,
      logger: this.#logger,
      lifecycle: { instructions: instructionsFor(this.#config.exposure) },
      maxBufferedInputBytes: this.#config.connections.maxBufferedInputBytes,
    });
    this.#selfMcp.onSurfaceChanged((kinds) => {
      for (const kind of kinds) this.#core.notifyListChanged(kind);
    });
    this.#selfMcp.onTaskStatus((event) => {
      this.#core.notifyTaskStatus(event.taskId, event.message, event.creatorConnectionId);
    });
    this.#wireNotifications();
  }

  /** Binds every serve target; on failure closes what was opened and rethrows. */
  async listen(): Promise<Listener[]> {
    await this.#joinFleet();
    for (const target of this.#targets) {
      try {
        const listener = await startListener(target, {
          core: this.#core,
          config: this.#config,
          tls: this.#tls,
          logger: this.#logger,
          ...(this.#cluster === undefined
            ? {}
            : { sessionIdPrefix: sessionIdPrefix(this.#cluster.instanceId) }),
          onStdioEnd: () => {
            this.#logger.info('stdio peer closed stdin; shutting down');
            void this.shutdown(0, 'stdin closed');
          },
        });
        this.#listeners.push(listener);
        this.#logger.info('listening', {
          target: target.raw,
          address: listener.address,
          trust: listenerTrust(
            target.kind === 'https' ? 'http' : target.kind,
            this.#config.auth.bearerTokens.length > 0,
          ),
        });
      } catch (error) {
        await this.#abortStart();
        throw error;
      }
    }
    if (this.#metrics !== undefined && this.#config.metrics !== undefined) {
      try {
        const tokens = this.#config.auth.bearerTokens.map((t) => t.token);
        this.#metricsServer = await serveMetrics(
          parseMetricsTarget(this.#config.metrics),
          this.#metrics.registry,
          tokens,
        );
        this.#logger.info('serving metrics', { address: this.#metricsServer.url });
      } catch (error) {
        await this.#abortStart();
        throw error;
      }
    }
    this.#startWatcher();
    return this.#listeners;
  }

  /** Where Prometheus metrics are served, when they are. */
  get metricsUrl(): string | undefined {
    return this.#metricsServer?.url;
  }

  /** Before any listener: a replica serves only once it answers for the whole fleet. */
  async #joinFleet(): Promise<void> {
    try {
      await this.#cluster?.start();
    } catch (error) {
      await this.#abortStart();
      throw error;
    }
  }

  async #abortStart(): Promise<void> {
    await Promise.all(this.#listeners.map((l) => l.close(0)));
    this.#listeners = [];
    await this.#cluster?.close();
    await this.#link?.close();
    await this.#supervisor.dispose();
    await this.#selfMcp.close();
  }

  get drainTimeoutMs(): number {
    return this.#config.drainTimeoutMs;
  }

  // ---- OperationHost / ResourceHost ----

  supervisor(): Supervisor {
    return this.#supervisor;
  }

  runs(): RunIndex {
    return this.#runs;
  }

  ring(): EventRing {
    return this.#ring;
  }

  agents(): { name: string; description?: string }[] {
    return Object.entries(this.#config.agents).map(([name, p]) =>
      p.description === undefined ? { name } : { name, description: p.description },
    );
  }

  defaultAgent(): string {
    return this.#config.defaultAgent;
  }

  statusBody(): JsonObject {
    const s = this.#supervisor.snapshot();
    return {
      name: 'agentd',
      version: this.version,
      pid: process.pid,
      startedAt: this.startedAt.toISOString(),
      uptimeMs: Date.now() - this.startedAt.getTime(),
      ready: s.ready,
      paused: s.paused,
      draining: s.draining,
      running: s.running,
      warm: s.warm,
      tracked: s.tracked,
      totals: { ...s.totals },
      defaultAgent: s.defaultAgent,
      agents: [...s.agents],
      exposure: this.#config.exposure,
      ...(this.#cluster === undefined ? {} : { instance: this.#cluster.instanceId }),
    };
  }

  capabilitiesBody(peer: Peer): JsonObject {
    const visible = this.#selfMcp.visibleOperations(peer);
    const management = seesManagement(peer);
    return {
      contractVersion: '1.0',
      agentVersion: this.version,
      exposure: this.#config.exposure,
      defaultAgent: this.#config.defaultAgent,
      agents: Object.entries(this.#config.agents).map(([name, p]) => ({
        name,
        mode: p.mode,
        ...(p.description === undefined ? {} : { description: p.description }),
      })),
      limits: { ...this.#config.limits },
      operations: visible.map((o) => ({ kind: o.kind, id: o.id, description: o.description })),
      resources: RESOURCE_SPECS.filter((r) => management || !r.management).map((r) => ({
        uri: r.uri,
        subscribable: r.subscribable,
        description: r.description,
      })),
    };
  }

  async inventoryBody(): Promise<JsonObject> {
    const s = this.#supervisor.snapshot();
    const fleet = await this.#runs.fleet();
    return {
      snapshot: JSON.parse(JSON.stringify(s)) as JsonObject,
      listeners: this.#listeners.map((l) => ({ target: l.target.raw, address: l.address })),
      subagents: this.#supervisor.list().map(statusJson),
      ...(fleet === undefined ? {} : { fleet }),
    };
  }

  configEffectiveBody(): JsonObject {
    return {
      generation: this.#generation,
      loadedAt: this.#loadedAt.toISOString(),
      configPath: this.#configPath ?? null,
      restartRequired: [...this.#pendingRestart],
      config: redactConfig(this.#config),
    };
  }

  beginDrain(deadlineMs: number | undefined): JsonObject {
    const deadline = deadlineMs ?? this.#config.drainTimeoutMs;
    if (this.#shutdown === undefined) void this.shutdown(deadline, 'drain operation');
    const s = this.#supervisor.snapshot();
    return {
      draining: true,
      startedAt: this.#drainStartedAt ?? new Date().toISOString(),
      deadlineMs: this.#drainDeadlineMs ?? deadline,
      running: s.running,
      warm: s.warm,
    };
  }

  setReady(ready: boolean): JsonObject {
    this.#supervisor.setReady(ready);
    this.#logger.info(ready ? 'readiness restored' : 'lame duck: readiness off');
    const s = this.#supervisor.snapshot();
    return { ready: s.ready, draining: s.draining, running: s.running, warm: s.warm };
  }

  // ---- notifications ----

  #notify(uri: string, keep: boolean): void {
    this.#core.notifyResourceUpdated(uri, { keep });
  }

  #wireNotifications(): void {
    this.#supervisor.on('status', (status: SubagentStatus) => {
      this.#metrics?.observeRun(status);
      this.#notify(`agent://run/${status.runId}`, true);
      if (status.terminal) this.#notify(`agent://subagent/${status.handle}`, false);
      if (status.warm && status.terminal) this.#notify(`agent://session/${status.handle}`, true);
      this.#notify('agent://inventory', true);
    });
    this.#supervisor.on('turn', (handle: string) => this.#notify(`agent://session/${handle}`, true));
    this.#ring.onAppend(() => {
      if (this.#eventsTimer !== undefined) return;
      this.#eventsTimer = setTimeout(() => {
        this.#eventsTimer = undefined;
        this.#notify('agent://events', true);
      }, EVENTS_NOTIFY_MS);
      this.#eventsTimer.unref();
    });
  }

  /** A run changed that no replica notified for itself (marked lost): notify as if it ran here. */
  #notifyLost(change: RunChange): void {
    this.#notify(`agent://run/${change.runId}`, true);
    if (change.terminal) this.#notify(`agent://subagent/${change.handle}`, false);
    if (change.warm) this.#notify(`agent://session/${change.handle}`, true);
    this.#notify('agent://inventory', true);
  }

  // ---- reload ----

  #startWatcher(): void {
    if (this.#configPath === undefined || !this.#config.watch || this.#watcher !== undefined) return;
    this.#watcher = new ConfigWatcher(this.#configPath, () => this.reload('file change'));
    this.#watcher.start();
  }

  /** Applies a changed config atomically, or keeps the running one and says why. */
  reload(trigger: string): {
    applied: boolean;
    changed: string[];
    restartRequired: string[];
    issues?: string[];
    generation: number;
  } {
    this.#watcher?.markSeen();
    let next: ResolvedConfig;
    try {
      next = resolveConfig(this.#inputs);
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      const issues = error.issues.map(formatIssue);
      this.#logger.warn('config reload rejected; keeping the running config', { trigger, issues });
      return { applied: false, changed: [], restartRequired: [], issues, generation: this.#generation };
    }
    const diff = diffConfig(this.#config, next.config);
    try {
      this.#supervisor.reconfigure(supervisorConfig(diff.effective));
    } catch (error) {
      const issues = [(error as Error).message];
      this.#logger.warn('config reload rejected; keeping the running config', { trigger, issues });
      return { applied: false, changed: [], restartRequired: [], issues, generation: this.#generation };
    }
    const surfaceChanged = diff.changed.includes('agents') || diff.changed.includes('defaultAgent');
    this.#config = diff.effective;
    this.#logger.setLevel(this.#config.logLevel);
    for (const key of diff.restartRequired) this.#pendingRestart.add(key);
    this.#generation++;
    this.#loadedAt = new Date();
    if (this.#config.watch) this.#startWatcher();
    else {
      this.#watcher?.stop();
      this.#watcher = undefined;
    }
    if (surfaceChanged) this.#selfMcp.refreshOperations();
    this.#notify('agent://config/effective', true);
    this.#notify('agent://capabilities', true);
    this.#logger.info('config reloaded', { trigger, generation: this.#generation, changed: diff.changed });
    if (diff.restartRequired.length > 0) {
      this.#logger.warn('restart required to apply some changes', { keys: diff.restartRequired });
    }
    return {
      applied: true,
      changed: diff.changed,
      restartRequired: diff.restartRequired,
      generation: this.#generation,
    };
  }

  // ---- shutdown ----

  /** Drain: no new spawns, running ones get until the deadline, then cancel, close listeners, exit 0. */
  shutdown(deadlineMs: number, reason: string): Promise<void> {
    if (this.#shutdown !== undefined) return this.#shutdown;
    this.#drainStartedAt = new Date().toISOString();
    this.#drainDeadlineMs = deadlineMs;
    this.#logger.info('draining', { reason, deadlineMs });
    this.#shutdown = (async () => {
      try {
        await this.#supervisor.drain(deadlineMs);
        // Let the responses of sync spawns that just finished reach their peers.
        await new Promise((resolve) => setTimeout(resolve, 50));
        this.#watcher?.stop();
        clearTimeout(this.#eventsTimer);
        await this.#core.close();
        await Promise.all(this.#listeners.map((l) => l.close(2_000)));
        await this.#metricsServer?.close();
        await this.#supervisor.dispose();
        await this.#cluster?.close();
        await this.#link?.close();
        await this.#selfMcp.close();
        this.#logger.info('stopped', { reason });
        this.#exit(0);
      } catch (error) {
        this.#logger.error('shutdown failed', { error: String(error) });
        this.#exit(1);
      }
    })();
    return this.#shutdown;
  }

  /** A second signal during a drain: stop waiting for running subagents. */
  hurry(): void {
    this.#logger.warn('second stop signal: cancelling running subagents now');
    void this.#supervisor.cancelAll('daemon stopping');
  }
}

/**
 * The running daemon: composes the supervisor, the fleet, the self-MCP core, its two hosts, the
 * listener set and the reload controller, and owns the start and the graceful stop.
 */
import { taskStatusNotification } from '@agentd/dispatch';
import type { ClusterLink } from '../cluster/cluster-link.js';
import { ClusterNode, type ClusterNodeOptions, sessionIdPrefix } from '../cluster/cluster-node.js';
import type { ConfigInputs, ResolvedConfig } from '../config/resolve-config.js';
import { defaultStateDir } from '../history/history-config.js';
import type { RunStore } from '../history/history-types.js';
import { recordRuns } from '../history/run-recorder.js';
import { storedSessions } from '../history/stored-sessions.js';
import { EventRing } from '../log/event-ring.js';
import type { JsonLineLogger } from '../log/logger.js';
import { type MetricsServer, serveMetrics } from '../metrics/metrics-server.js';
import { parseMetricsTarget } from '../metrics/metrics-target.js';
import { ResourceNotifier } from '../self-mcp/resource-notifier.js';
import { localRunIndex, type RunIndex } from '../self-mcp/run-index.js';
import { createSelfMcpCore, type SelfMcpCore } from '../self-mcp/served-core.js';
import { Supervisor } from '../supervisor/index.js';
import { daemonStatus } from './daemon-status.js';
import { Drain } from './drain.js';
import { ListenerSet } from './listener-set.js';
import { DaemonOperations } from './operation-host.js';
import { supervisorConfig } from './profiles.js';
import { ReloadController, type ReloadOutcome } from './reload-controller.js';
import { DaemonResources } from './resource-host.js';
import { RunningConfig } from './running-config.js';
import type { Listener } from './serve-targets.js';

export interface DaemonOptions {
  inputs: ConfigInputs;
  resolved: ResolvedConfig;
  logger: JsonLineLogger;
  version: string;
  /** The fleet's Redis, opened by the caller when `cluster` is configured (closed on shutdown). */
  link?: ClusterLink;
  /** The run store (on disk, or the fleet's in Redis), opened by the caller when history is kept (closed on shutdown). */
  store?: RunStore;
}

/** The fleet member when `cluster` is configured and its Redis is open; undefined otherwise. */
function clusterNodeFor(
  options: DaemonOptions,
  supervisor: Supervisor,
  hooks: Pick<ClusterNodeOptions, 'listeners' | 'onLost' | 'onTaskFailed'>,
): ClusterNode | undefined {
  const { link, logger, version } = options;
  const config = options.resolved.config.cluster;
  if (config === undefined || link === undefined) return undefined;
  return new ClusterNode({
    config,
    instanceId: link.instanceId,
    ...(options.store === undefined ? {} : { history: options.store }),
    link: link.connection,
    tasks: link.taskStore,
    supervisor,
    logger,
    version,
    ...hooks,
  });
}

export class Daemon {
  readonly version: string;
  readonly startedAt = new Date();
  readonly #logger: JsonLineLogger;
  readonly #running: RunningConfig;
  readonly #ring: EventRing;
  readonly #supervisor: Supervisor;
  readonly #link: ClusterLink | undefined;
  readonly #store: RunStore | undefined;
  readonly #stopRecording: () => void;
  /** The fleet, when `cluster` is configured (joined in listen()). */
  readonly #cluster: ClusterNode | undefined;
  readonly #runs: RunIndex;
  readonly #notifier: ResourceNotifier;
  readonly #listeners: ListenerSet;
  readonly #reloads: ReloadController;
  readonly #drain = new Drain((deadlineMs, reason) => this.#stop(deadlineMs, reason));
  readonly #mcp: SelfMcpCore;
  #metricsServer: MetricsServer | undefined;
  #exit!: (code: number) => void;
  /** Resolves with the process exit code once the daemon has stopped. */
  readonly exited = new Promise<number>((resolve) => {
    this.#exit = resolve;
  });

  constructor(options: DaemonOptions) {
    this.version = options.version;
    this.#logger = options.logger;
    this.#link = options.link;
    this.#running = new RunningConfig(options.resolved);
    this.#ring = new EventRing(this.#running.config.eventsRing);
    this.#logger.setRing(this.#ring);
    this.#supervisor = new Supervisor({
      ...supervisorConfig(this.#running.config),
      logger: this.#logger,
      // Runs' workspaces live in the state directory, history or not.
      stateDir: this.#running.config.stateDir ?? defaultStateDir(options.inputs.env),
    });
    this.#store = options.store;
    this.#stopRecording =
      options.store === undefined ? () => {} : recordRuns(this.#supervisor, options.store);
    // A conversation continues on the daemon that kept it; a fleet's lost runs stay lost (final in Redis).
    if (options.store !== undefined && options.link === undefined)
      this.#supervisor.resumeFrom(storedSessions(options.store));
    this.#notifier = new ResourceNotifier(() => this.#mcp.core);
    this.#listeners = new ListenerSet(this.#logger);
    this.#cluster = clusterNodeFor(options, this.#supervisor, {
      listeners: () => this.#listeners.addresses(),
      onLost: (change) => this.#notifier.lost(change),
      // Only a 2025-11-25 task notifies its creator's session (wherever the bus finds it).
      onTaskFailed: (record) =>
        this.#mcp.core.notifyTaskStatus(
          record.taskId,
          taskStatusNotification(record),
          record.era === 'legacy' ? record.creator : undefined,
        ),
    });
    this.#runs = this.#cluster ?? localRunIndex(() => this.#supervisor, this.#store);
    this.#reloads = this.#reloadController(options.inputs);
    this.#mcp = this.#selfMcpCore();
    this.#notifier.watch(this.#supervisor, this.#ring);
  }

  #reloadController(inputs: ConfigInputs): ReloadController {
    return new ReloadController({
      inputs,
      running: this.#running,
      supervisor: this.#supervisor,
      logger: this.#logger,
      onApplied: (surfaceChanged) => {
        if (surfaceChanged) this.#mcp.selfMcp.refreshOperations();
        this.#notifier.updated('agent://config/effective', true);
        this.#notifier.updated('agent://capabilities', true);
      },
    });
  }

  /** The self-MCP with its two hosts: the operations act on runs, the resources read the daemon. */
  #selfMcpCore(): SelfMcpCore {
    const status = () =>
      daemonStatus(
        this.#supervisor,
        { version: this.version, startedAt: this.startedAt, instanceId: this.#cluster?.instanceId },
        this.#running.config.exposure,
      );
    const common = { supervisor: this.#supervisor, runs: this.#runs, running: this.#running, status };
    const operations = new DaemonOperations({
      ...common,
      logger: this.#logger,
      drain: this.#drain,
      reload: (trigger) => this.reload(trigger),
    });
    const resources = new DaemonResources({
      ...common,
      version: this.version,
      ring: this.#ring,
      visibleOperations: (peer) => this.#mcp.selfMcp.visibleOperations(peer),
      listeners: () => this.#listeners.entries(),
    });
    return createSelfMcpCore({
      config: this.#running.config,
      version: this.version,
      logger: this.#logger,
      supervisor: this.#supervisor,
      operations,
      resources,
      link: this.#link,
      cluster: this.#cluster,
    });
  }

  /**
   * Joins the fleet (a replica serves only once it answers for the whole fleet), binds every serve
   * target, serves metrics; on any failure closes what was opened and rethrows.
   */
  async listen(): Promise<readonly Listener[]> {
    try {
      await this.#cluster?.start();
      await this.#listeners.open(this.#running.targets, {
        core: this.#mcp.core,
        config: this.#running.config,
        tls: this.#running.tls,
        logger: this.#logger,
        ...(this.#cluster === undefined
          ? {}
          : { sessionIdPrefix: sessionIdPrefix(this.#cluster.instanceId) }),
        onStdioEnd: () => {
          this.#logger.info('stdio peer closed stdin; shutting down');
          void this.shutdown(0, 'stdin closed');
        },
      });
      await this.#serveMetrics();
    } catch (error) {
      await this.#abortStart();
      throw error;
    }
    this.#reloads.watch();
    return this.#listeners.all;
  }

  async #serveMetrics(): Promise<void> {
    const { metrics } = this.#mcp;
    const address = this.#running.config.metrics;
    if (metrics === undefined || address === undefined) return;
    const tokens = this.#running.config.auth.bearerTokens.map((t) => t.token);
    this.#metricsServer = await serveMetrics(parseMetricsTarget(address), metrics.registry, tokens);
    this.#logger.info('serving metrics', { address: this.#metricsServer.url });
  }

  /** Where Prometheus metrics are served, when they are. */
  get metricsUrl(): string | undefined {
    return this.#metricsServer?.url;
  }

  async #abortStart(): Promise<void> {
    await this.#listeners.close(0);
    await this.#cluster?.close();
    await this.#link?.close();
    await this.#supervisor.dispose();
    await this.#closeStore();
    await this.#mcp.selfMcp.close();
  }

  /** After the supervisor's last run ended: the last records and events reach the disk. */
  async #closeStore(): Promise<void> {
    this.#stopRecording();
    await this.#store?.close();
  }

  get drainTimeoutMs(): number {
    return this.#running.config.drainTimeoutMs;
  }

  /** Applies a changed config atomically, or keeps the running one and says why. */
  reload(trigger: string): ReloadOutcome {
    return this.#reloads.reload(trigger);
  }

  /** Drain: no new spawns, running ones get until the deadline, then cancel, close listeners, exit 0. */
  shutdown(deadlineMs: number, reason: string): Promise<void> {
    return this.#drain.begin(deadlineMs, reason);
  }

  async #stop(deadlineMs: number, reason: string): Promise<void> {
    this.#logger.info('draining', { reason, deadlineMs });
    try {
      await this.#supervisor.drain(deadlineMs);
      // Let the responses of sync spawns that just finished reach their peers.
      await new Promise((resolve) => setTimeout(resolve, 50));
      this.#reloads.stop();
      this.#notifier.stop();
      await this.#mcp.core.close();
      await this.#listeners.close(2_000);
      await this.#metricsServer?.close();
      await this.#supervisor.dispose();
      await this.#closeStore();
      await this.#cluster?.close();
      await this.#link?.close();
      await this.#mcp.selfMcp.close();
      this.#logger.info('stopped', { reason });
      this.#exit(0);
    } catch (error) {
      this.#logger.error('shutdown failed', { error: String(error) });
      this.#exit(1);
    }
  }

  /** A second signal during a drain: stop waiting for running subagents. */
  hurry(): void {
    this.#logger.warn('second stop signal: cancelling running subagents now');
    void this.#supervisor.cancelAll('daemon stopping');
  }
}

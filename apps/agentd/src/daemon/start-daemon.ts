/** `agentd` / `agentd stdio`: resolves the config (exit 2 before any side effect), starts, waits for the end. */
import { LocalError } from '@agentd/rpc-frame';
import type { Command } from '../cli/parse-args.js';
import { type ClusterLink, openClusterLink } from '../cluster/cluster-link.js';
import type { ConfigInputs } from '../config/resolve-config.js';
import { resolveConfig } from '../config/resolve-config.js';
import type { RunStore } from '../history/history-types.js';
import { openHistory } from '../history/open-history.js';
import { JsonLineLogger } from '../log/logger.js';
import { startTelemetry, type TelemetryHandle } from '../telemetry/start-telemetry.js';
import { Daemon } from './daemon.js';
import { dashboardLines } from './dashboard-lines.js';

export interface StartContext {
  env: NodeJS.ProcessEnv;
  cwd: string;
  version: string;
  io: { out(text: string): void; err(text: string): void };
}

export async function startDaemon(
  command: Extract<Command, { kind: 'serve' }>,
  context: StartContext,
): Promise<number> {
  const inputs: ConfigInputs = {
    env: context.env,
    flags: command.flags,
    serveDefaults: !command.stdio,
    forceStdio: command.stdio,
    cwd: context.cwd,
    ...(command.configPath === undefined ? {} : { configPath: command.configPath }),
    ...(command.bearerTokenFile === undefined ? {} : { bearerTokenFile: command.bearerTokenFile }),
  };
  // Throws ConfigError (exit 2) before anything is bound, spawned or written.
  const resolved = resolveConfig(inputs);
  const logger = new JsonLineLogger({ level: resolved.config.logLevel, fields: { pid: process.pid } });
  // Before anything serves: every request span then reaches the exporter.
  const telemetry = await startTelemetry(resolved.config.telemetry, context.version);
  const cluster = resolved.config.cluster;
  let link: ClusterLink | undefined;
  if (cluster !== undefined) {
    try {
      link = await openClusterLink(cluster, logger);
    } catch (error) {
      if (!(error instanceof LocalError)) throw error;
      logger.error('cannot start', { code: error.code, error: error.message });
      context.io.err(`agentd: ${error.message}\n`);
      return 1;
    }
  }
  let store: RunStore | undefined;
  try {
    store = await openHistory(resolved.config, {
      env: context.env,
      logger,
      stdio: command.stdio,
      ...(link === undefined ? {} : { link }),
    });
  } catch (error) {
    if (!(error instanceof LocalError)) throw error;
    logger.error('cannot start', { code: error.code, error: error.message });
    context.io.err(`agentd: ${error.message}\n`);
    await link?.close();
    await shutdownTelemetry(telemetry, logger);
    return 1;
  }
  const daemon = new Daemon({
    inputs,
    resolved,
    logger,
    version: context.version,
    ...(link === undefined ? {} : { link }),
    ...(store === undefined ? {} : { store }),
  });

  let stops = 0;
  const onStop = (signal: NodeJS.Signals) => {
    stops++;
    if (stops === 1) void daemon.shutdown(daemon.drainTimeoutMs, signal);
    else daemon.hurry();
  };
  const onHup = () => daemon.reload('SIGHUP');
  process.on('SIGTERM', onStop);
  process.on('SIGINT', onStop);
  process.on('SIGHUP', onHup);
  try {
    const listeners = await daemon.listen();
    logger.info('agentd started', { version: context.version, configPath: resolved.configPath ?? null });
    // stdout belongs to the MCP stream when stdio is served; otherwise say where we listen.
    if (!listeners.some((l) => l.target.kind === 'stdio')) {
      // One write, so a reader never sees half the list.
      const lines = listeners.map((l) => `  ${l.address}\n`).join('');
      const metrics = daemon.metricsUrl === undefined ? '' : `metrics: ${daemon.metricsUrl}\n`;
      context.io.out(
        `agentd ${context.version} listening on:\n${lines}${metrics}${dashboardLines(listeners)}`,
      );
    }
  } catch (error) {
    process.off('SIGTERM', onStop);
    process.off('SIGINT', onStop);
    process.off('SIGHUP', onHup);
    await shutdownTelemetry(telemetry, logger);
    if (error instanceof LocalError) {
      logger.error('cannot start', { code: error.code, error: error.message });
      context.io.err(`agentd: ${error.message}\n`);
      // A vsock target where vsock cannot work (no addon, no kernel support) is a configuration error.
      return error.code === 'vsock_unavailable' ? 2 : 1;
    }
    throw error;
  }
  const code = await daemon.exited;
  process.off('SIGTERM', onStop);
  process.off('SIGINT', onStop);
  process.off('SIGHUP', onHup);
  await shutdownTelemetry(telemetry, logger);
  return code;
}

/** Exports what is left; an unreachable collector is logged, never a reason to fail the exit. */
async function shutdownTelemetry(
  telemetry: TelemetryHandle | undefined,
  logger: JsonLineLogger,
): Promise<void> {
  try {
    await telemetry?.shutdown();
  } catch (error) {
    logger.warn('telemetry shutdown failed', { error: String(error) });
  }
}

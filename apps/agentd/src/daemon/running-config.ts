/** The configuration the daemon runs on now, and what reloads did to it (generation, pending restarts). */
import type { JsonObject } from '@agentd/rpc-frame';
import type { AgentdConfig } from '../config/config-schema.js';
import { redactConfig } from '../config/redact-config.js';
import type { ResolvedConfig } from '../config/resolve-config.js';

export class RunningConfig {
  #config: AgentdConfig;
  readonly configPath: string | undefined;
  /** Serve targets and TLS material are fixed at startup (changing them needs a restart). */
  readonly targets: ResolvedConfig['targets'];
  readonly tls: ResolvedConfig['tls'];
  #generation = 1;
  #loadedAt = new Date();
  readonly #pendingRestart = new Set<string>();

  constructor(resolved: ResolvedConfig) {
    this.#config = resolved.config;
    this.configPath = resolved.configPath;
    this.targets = resolved.targets;
    this.tls = resolved.tls;
  }

  get config(): AgentdConfig {
    return this.#config;
  }

  get generation(): number {
    return this.#generation;
  }

  /** A reload applied: the next generation, with the keys that wait for a restart remembered. */
  advance(effective: AgentdConfig, restartRequired: readonly string[]): void {
    this.#config = effective;
    for (const key of restartRequired) this.#pendingRestart.add(key);
    this.#generation++;
    this.#loadedAt = new Date();
  }

  /** The body of agent://config/effective: secrets redacted. */
  effectiveBody(): JsonObject {
    return {
      generation: this.#generation,
      loadedAt: this.#loadedAt.toISOString(),
      configPath: this.configPath ?? null,
      restartRequired: [...this.#pendingRestart],
      config: redactConfig(this.#config),
    };
  }
}

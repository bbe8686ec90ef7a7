/** Hot reload: re-resolves the config (file watch, SIGHUP, the reload operation) and applies it atomically. */
import { ConfigError, formatIssue } from '../config/config-error.js';
import { type ConfigInputs, type ResolvedConfig, resolveConfig } from '../config/resolve-config.js';
import type { JsonLineLogger } from '../log/logger.js';
import type { Supervisor } from '../supervisor/index.js';
import { diffConfig } from './config-diff.js';
import { ConfigWatcher } from './config-watcher.js';
import { supervisorConfig } from './profiles.js';
import type { RunningConfig } from './running-config.js';

export type ReloadOutcome = {
  applied: boolean;
  changed: string[];
  restartRequired: string[];
  issues?: string[];
  generation: number;
};

export interface ReloadParts {
  inputs: ConfigInputs;
  running: RunningConfig;
  supervisor: Supervisor;
  logger: JsonLineLogger;
  /** After a config is applied; `surfaceChanged` when agent names or the default agent changed. */
  onApplied: (surfaceChanged: boolean) => void;
}

export class ReloadController {
  #watcher: ConfigWatcher | undefined;

  constructor(private readonly parts: ReloadParts) {}

  /** Watches the config file when there is one and `watch` is on. */
  watch(): void {
    const { running } = this.parts;
    if (running.configPath === undefined || !running.config.watch || this.#watcher !== undefined) return;
    this.#watcher = new ConfigWatcher(running.configPath, () => this.reload('file change'));
    this.#watcher.start();
  }

  stop(): void {
    this.#watcher?.stop();
    this.#watcher = undefined;
  }

  /** Applies a changed config atomically, or keeps the running one and says why. */
  reload(trigger: string): ReloadOutcome {
    const { running, logger } = this.parts;
    this.#watcher?.markSeen();
    let next: ResolvedConfig;
    try {
      next = resolveConfig(this.parts.inputs);
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      return this.#rejected(trigger, error.issues.map(formatIssue));
    }
    const diff = diffConfig(running.config, next.config);
    try {
      this.parts.supervisor.reconfigure(supervisorConfig(diff.effective));
    } catch (error) {
      return this.#rejected(trigger, [(error as Error).message]);
    }
    running.advance(diff.effective, diff.restartRequired);
    logger.setLevel(running.config.logLevel);
    if (running.config.watch) this.watch();
    else this.stop();
    this.parts.onApplied(diff.changed.includes('agents') || diff.changed.includes('defaultAgent'));
    logger.info('config reloaded', { trigger, generation: running.generation, changed: diff.changed });
    if (diff.restartRequired.length > 0) {
      logger.warn('restart required to apply some changes', { keys: diff.restartRequired });
    }
    return {
      applied: true,
      changed: diff.changed,
      restartRequired: diff.restartRequired,
      generation: running.generation,
    };
  }

  #rejected(trigger: string, issues: string[]): ReloadOutcome {
    this.parts.logger.warn('config reload rejected; keeping the running config', { trigger, issues });
    return {
      applied: false,
      changed: [],
      restartRequired: [],
      issues,
      generation: this.parts.running.generation,
    };
  }
}

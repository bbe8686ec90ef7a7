/** The daemon's bound serve targets: opened in order at startup, closed together at the end. */
import type { ServeTarget } from '../config/serve-target.js';
import type { JsonLineLogger } from '../log/logger.js';
import { listenerTrust } from '../self-mcp/trust.js';
import { type ListenContext, type Listener, startListener } from './serve-targets.js';

export class ListenerSet {
  #listeners: Listener[] = [];

  constructor(private readonly logger: JsonLineLogger) {}

  get all(): readonly Listener[] {
    return this.#listeners;
  }

  addresses(): string[] {
    return this.#listeners.map((l) => l.address);
  }

  /** For the inventory: each target as configured and where peers reach it. */
  entries(): { target: string; address: string }[] {
    return this.#listeners.map((l) => ({ target: l.target.raw, address: l.address }));
  }

  /** Binds every target in order; throws the first failure (the ones already bound stay open). */
  async open(targets: readonly ServeTarget[], context: ListenContext): Promise<void> {
    const bearer = context.config.auth.bearerTokens.length > 0;
    for (const target of targets) {
      const listener = await startListener(target, context);
      this.#listeners.push(listener);
      this.logger.info('listening', {
        target: target.raw,
        address: listener.address,
        trust: listenerTrust(target.kind === 'https' ? 'http' : target.kind, bearer),
      });
    }
  }

  async close(deadlineMs: number): Promise<void> {
    const closing = this.#listeners.splice(0);
    await Promise.all(closing.map((l) => l.close(deadlineMs)));
  }
}

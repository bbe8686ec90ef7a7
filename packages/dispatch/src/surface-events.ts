/** Debounced "the tool/resource/prompt surface changed" events, so the embedder can push list_changed once per burst. */
import type { SurfaceKind } from './catalogue.js';

export type SurfaceListener = (kinds: readonly SurfaceKind[]) => void;

export class SurfaceEvents {
  readonly #listeners = new Set<SurfaceListener>();
  readonly #pending = new Set<SurfaceKind>();
  readonly #debounceMs: number;
  readonly #onListenerError: (error: unknown) => void;
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(debounceMs: number, onListenerError: (error: unknown) => void) {
    this.#debounceMs = debounceMs;
    this.#onListenerError = onListenerError;
  }

  subscribe(listener: SurfaceListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  mark(kinds: readonly SurfaceKind[]): void {
    for (const kind of kinds) this.#pending.add(kind);
    if (this.#timer !== undefined) return;
    this.#timer = setTimeout(() => this.flush(), this.#debounceMs);
    this.#timer.unref?.();
  }

  /** Delivers what is pending now (also what the timer does). */
  flush(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#pending.size === 0) return;
    const order: SurfaceKind[] = ['tools', 'resources', 'prompts'];
    const kinds = order.filter((kind) => this.#pending.has(kind));
    this.#pending.clear();
    for (const listener of this.#listeners) {
      try {
        listener(kinds);
      } catch (error) {
        this.#onListenerError(error);
      }
    }
  }

  close(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#pending.clear();
  }
}

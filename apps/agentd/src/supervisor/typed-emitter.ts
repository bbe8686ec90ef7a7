/** A minimal typed event emitter whose listeners can never break the emitter (errors are reported). */
// biome-ignore lint/suspicious/noExplicitAny: listener signatures vary per event
type ListenerMap = Record<string, (...args: any[]) => void>;

export class TypedEmitter<L extends ListenerMap> {
  private readonly listeners = new Map<keyof L, Set<L[keyof L]>>();

  constructor(private readonly onListenerError: (event: keyof L, error: unknown) => void) {}

  on<E extends keyof L>(event: E, listener: L[E]): void {
    let set = this.listeners.get(event);
    if (set === undefined) {
      set = new Set();
      this.listeners.set(event, set);
    }
    set.add(listener);
  }

  off<E extends keyof L>(event: E, listener: L[E]): void {
    this.listeners.get(event)?.delete(listener);
  }

  emit<E extends keyof L>(event: E, ...args: Parameters<L[E]>): void {
    const set = this.listeners.get(event);
    if (set === undefined) return;
    for (const listener of [...set]) {
      try {
        listener(...args);
      } catch (error) {
        this.onListenerError(event, error);
      }
    }
  }
}

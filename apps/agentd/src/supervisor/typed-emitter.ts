/** A minimal typed event emitter whose listeners can never break the emitter (errors are reported). */
// biome-ignore lint/suspicious/noExplicitAny: listener signatures vary per event
type ListenerMap = Record<string, (...args: any[]) => void>;

export class TypedEmitter<L extends ListenerMap> {
  /**
   * Each event's listeners, replaced (never changed in place) on `on`/`off`: an emit walks the
   * array it started with, so a listener added or removed meanwhile changes only later emits,
   * and an emit (every run event passes here twice) copies nothing.
   */
  private readonly listeners = new Map<keyof L, readonly L[keyof L][]>();

  constructor(private readonly onListenerError: (event: keyof L, error: unknown) => void) {}

  on<E extends keyof L>(event: E, listener: L[E]): void {
    const current = this.listeners.get(event) ?? [];
    if (!current.includes(listener)) this.listeners.set(event, [...current, listener]);
  }

  off<E extends keyof L>(event: E, listener: L[E]): void {
    const current = this.listeners.get(event);
    if (current?.includes(listener))
      this.listeners.set(
        event,
        current.filter((known) => known !== listener),
      );
  }

  emit<E extends keyof L>(event: E, ...args: Parameters<L[E]>): void {
    const current = this.listeners.get(event);
    if (current === undefined) return;
    for (const listener of current) {
      try {
        listener(...args);
      } catch (error) {
        this.onListenerError(event, error);
      }
    }
  }
}

/**
 * The seam that lets registries in several processes act as one: each registry publishes what it
 * raises and applies what others raise to its own writers. An event never comes back to the member
 * that published it, so the origin delivers once (locally) and every other member once.
 */
import type { JsonRpcNotification } from '@agentd/rpc-frame';

/** What one registry tells the others. Uris travel as raised; each member canonicalizes its own way. */
export type BusEvent =
  /** `resources/updated`: `keep` false consumes legacy subscriptions (one-shot), true keeps them. */
  | { readonly kind: 'updated'; readonly uri: string; readonly keep: boolean }
  /** A payload-free note (list_changed) once per distinct writer on every member. */
  | { readonly kind: 'broadcast'; readonly message: JsonRpcNotification }
  /** A task's status: listen streams watching it everywhere, and the creator connection wherever it lives. */
  | {
      readonly kind: 'task';
      readonly taskId: string;
      readonly message: JsonRpcNotification;
      readonly creator?: string | undefined;
    };

/** One member's view of a bus. Implementations: `MemoryEventHub` (one process), `@agentd/redis`. */
export interface EventBus {
  /** Sends to every other member; best effort (a member that is unreachable misses it). */
  publish(event: BusEvent): void;
  /** Receives the other members' events; returns the unsubscribe. */
  subscribe(listener: (event: BusEvent) => void): () => void;
}

/** The in-memory bus: members in one process (several cores, tests, the reference for the Redis bus). */
export class MemoryEventHub {
  readonly #members = new Set<Set<(event: BusEvent) => void>>();

  /** A new member. Delivery is asynchronous (a microtask), as it is across processes. */
  member(): EventBus {
    const own = new Set<(event: BusEvent) => void>();
    this.#members.add(own);
    return {
      publish: (event) => {
        for (const other of this.#members) {
          if (other === own) continue;
          for (const listener of [...other]) queueMicrotask(() => listener(event));
        }
      },
      subscribe: (listener) => {
        own.add(listener);
        return () => own.delete(listener);
      },
    };
  }
}

/** Tells subscribers which agent:// resources changed: on run status, warm turns, log events, lost runs. */
import type { ServerCore } from '@agentd/server';
import type { RunChange } from '../cluster/shared-run.js';
import type { EventRing } from '../log/event-ring.js';
import type { SubagentStatus, Supervisor } from '../supervisor/index.js';

/** Events are coalesced so a chatty log does not flood agent://events subscribers. */
const EVENTS_NOTIFY_MS = 100;

export class ResourceNotifier {
  #eventsTimer: NodeJS.Timeout | undefined;

  /** `core` is read when a notification is sent (the core is built after its notifier). */
  constructor(private readonly core: () => ServerCore) {}

  updated(uri: string, keep: boolean): void {
    this.core().notifyResourceUpdated(uri, { keep });
  }

  watch(supervisor: Supervisor, ring: EventRing): void {
    supervisor.on('status', (status: SubagentStatus) => this.#runChanged(status));
    supervisor.on('turn', (handle: string) => this.updated(`agent://session/${handle}`, true));
    ring.onAppend(() => {
      if (this.#eventsTimer !== undefined) return;
      this.#eventsTimer = setTimeout(() => {
        this.#eventsTimer = undefined;
        this.updated('agent://events', true);
      }, EVENTS_NOTIFY_MS);
      this.#eventsTimer.unref();
    });
  }

  /** A run changed that no replica notified for itself (marked lost): notify as if it ran here. */
  lost(change: RunChange): void {
    this.updated(`agent://run/${change.runId}`, true);
    if (change.terminal) this.updated(`agent://subagent/${change.handle}`, false);
    if (change.warm) this.updated(`agent://session/${change.handle}`, true);
    this.updated('agent://inventory', true);
  }

  stop(): void {
    clearTimeout(this.#eventsTimer);
  }

  #runChanged(status: SubagentStatus): void {
    this.updated(`agent://run/${status.runId}`, true);
    if (status.terminal) this.updated(`agent://subagent/${status.handle}`, false);
    if (status.warm && status.terminal) this.updated(`agent://session/${status.handle}`, true);
    this.updated('agent://inventory', true);
  }
}

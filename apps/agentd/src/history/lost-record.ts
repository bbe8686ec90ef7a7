import type { JsonObject } from '@agentd/rpc-frame';

/** A live run whose daemon stopped before it ended: terminal, outcome unknown, no process. */
export function lostRecord<T extends JsonObject>(record: T, now: Date, message: string): T {
  const { pid: _pid, ...rest } = record;
  return {
    ...rest,
    state: 'lost',
    terminal: true,
    busy: false,
    endedAt: now.toISOString(),
    error: { code: 'lost', message },
  } as JsonObject as T;
}

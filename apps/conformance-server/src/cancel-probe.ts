/**
 * Two tools that make a handler's cancellation observable from outside, on any runtime:
 * `test_wait_for_cancel` waits until its call is aborted (or `seconds` pass), and
 * `test_cancel_counts` answers `{"waiting": n, "cancelled": m}` for this process.
 */
import type { Dispatcher } from '@agentd/dispatch';

let waiting = 0;
let cancelled = 0;

export function registerCancelProbe(dispatcher: Dispatcher): void {
  dispatcher.registerTool({
    name: 'test_wait_for_cancel',
    description: 'Waits until the call is cancelled (or `seconds` pass); counts the cancellation',
    inputSchema: { type: 'object', properties: { seconds: { type: 'number', minimum: 0, maximum: 120 } } },
    handler: (args, ctx) =>
      new Promise<string>((resolve) => {
        const seconds = typeof args.seconds === 'number' ? args.seconds : 30;
        waiting++;
        const timer = setTimeout(() => {
          waiting--;
          resolve('not cancelled');
        }, seconds * 1000);
        const onAbort = (): void => {
          waiting--;
          cancelled++;
          clearTimeout(timer);
          resolve('cancelled');
        };
        if (ctx.signal.aborted) onAbort();
        else ctx.signal.addEventListener('abort', onAbort, { once: true });
      }),
  });
  dispatcher.registerTool({
    name: 'test_cancel_counts',
    description: 'How many `test_wait_for_cancel` calls are waiting and how many were cancelled',
    handler: () => JSON.stringify({ waiting, cancelled }),
  });
}

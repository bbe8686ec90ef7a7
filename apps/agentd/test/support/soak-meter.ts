/** The soak test's pump: pipelined lanes of calls, memory sampled after the first window and at the end. */
import type { HeapSample } from './live-heap.js';

const MiB = 1024 * 1024;
/** Calls in flight on one lane at most. */
const LANE_WINDOW = 64;

/** Counts answers and keeps the first few failures. */
export class Meter {
  done = 0;
  churned = 0;
  early: HeapSample = { live: 0, rss: 0 };
  late: HeapSample = { live: 0, rss: 0 };
  readonly failures: string[] = [];
  private readonly started = Date.now();

  constructor(
    private readonly read: () => Promise<HeapSample>,
    /** Calls answered before the first sample. */
    readonly window: number,
  ) {}

  check(ok: boolean, text: string): void {
    if (!ok && this.failures.length < 5) this.failures.push(text.slice(0, 300));
  }

  /** Lets the daemon finish its last writes and timers, then reads its live heap. */
  async sample(): Promise<HeapSample> {
    // sleep-is-the-point: no event says the daemon is idle; memory is read after it settles a moment.
    await new Promise((resolve) => setTimeout(resolve, 250));
    return this.read();
  }

  report(transport: string): string {
    const seconds = ((Date.now() - this.started) / 1000).toFixed(1);
    const mb = (bytes: number) => Math.round(bytes / MiB);
    const at = (s: HeapSample) => `${mb(s.live)} MB live, ${mb(s.rss)} MB RSS`;
    return `${transport}: ${this.done} calls (+${this.churned} churning) in ${seconds} s; daemon ${at(this.early)} after the first ${this.window}, ${at(this.late)} after the last`;
  }
}

/** A pipelined request stream: `send(n)` writes call n; `onAnswer` is called once per answer. */
export interface Lane {
  send(n: number): void;
  onAnswer: (ok: boolean, text: string) => void;
}

/**
 * Runs calls 0..total-1 across `lanes`, at most LANE_WINDOW in flight on each. Once meter.window calls
 * are answered it stops sending, samples memory (meter.early), then goes on; at the end, meter.late.
 */
export function runCalls(meter: Meter, lanes: Lane[], total: number): Promise<void> {
  return new Promise((resolve) => {
    let sent = 0;
    let answered = 0;
    let sampling = false;
    let sampled = false;
    const inFlight = lanes.map(() => 0);
    const pump = (): void => {
      if (sampling) return;
      if (!sampled && answered >= meter.window) {
        sampling = true;
        void meter.sample().then((bytes) => {
          meter.early = bytes;
          sampled = true;
          sampling = false;
          pump();
        });
        return;
      }
      const limit = sampled ? total : meter.window;
      lanes.forEach((lane, i) => {
        while (sent < limit && (inFlight[i] as number) < LANE_WINDOW) {
          inFlight[i] = (inFlight[i] as number) + 1;
          lane.send(sent++);
        }
      });
    };
    lanes.forEach((lane, i) => {
      lane.onAnswer = (ok, text) => {
        meter.check(ok, text);
        inFlight[i] = (inFlight[i] as number) - 1;
        answered += 1;
        meter.done += 1;
        if (answered === total) {
          void meter.sample().then((bytes) => {
            meter.late = bytes;
            resolve();
          });
        } else pump();
      };
    });
    pump();
  });
}

/** Closed-loop load: keeps `inFlight` calls outstanding until a call count or a time bound, recording each latency. */

export interface LoadBounds {
  readonly inFlight: number;
  readonly maxCalls: number;
  readonly maxMs: number;
}

export interface LoadResult {
  readonly calls: number;
  readonly seconds: number;
  readonly callsPerSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
}

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index] as number;
}

/** `call` must verify its own answer and reject on a wrong one; the first rejection fails the load. */
export async function runLoad(call: () => Promise<void>, bounds: LoadBounds): Promise<LoadResult> {
  const latencies: number[] = [];
  const started = performance.now();
  const deadline = started + bounds.maxMs;
  let issued = 0;
  const worker = async (): Promise<void> => {
    while (issued < bounds.maxCalls && performance.now() < deadline) {
      issued++;
      const t0 = performance.now();
      await call();
      latencies.push(performance.now() - t0);
    }
  };
  await Promise.all(Array.from({ length: bounds.inFlight }, worker));
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    calls: latencies.length,
    seconds,
    callsPerSecond: latencies.length / seconds,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
  };
}

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, vi } from 'vitest';

const PROBE = fileURLToPath(new URL('./heap-probe.mjs', import.meta.url));

/** What a daemon holds after a full collection, and its RSS at that moment. */
export interface HeapSample {
  /** V8 heap in use plus memory outside it held by JS objects (Buffers): what a leak grows. */
  readonly live: number;
  readonly rss: number;
}

/**
 * The environment that preloads heap-probe.mjs into a daemon; `nodeOptions` are kept. The probe
 * writes into `dir`.
 */
export function liveHeapEnv(dir: string, nodeOptions = ''): Record<string, string> {
  return {
    NODE_OPTIONS: `${nodeOptions} --expose-gc --import="${PROBE}"`.trim(),
    HEAP_PROBE_FILE: join(dir, 'heap.json'),
  };
}

/** Reads a daemon's live heap through the probe liveHeapEnv(dir) preloaded into process `pid`. */
export function liveHeapReader(pid: number, dir: string): () => Promise<HeapSample> {
  const file = join(dir, 'heap.json');
  let seq = 0;
  return async () => {
    seq += 1;
    process.kill(pid, 'SIGUSR2');
    let sample: { seq: number; heapUsed: number; external: number; rss: number } | undefined;
    await vi.waitFor(
      () => {
        try {
          sample = JSON.parse(readFileSync(file, 'utf8'));
        } catch {
          sample = undefined;
        }
        expect(sample?.seq, `the heap probe in ${pid} answers SIGUSR2 (sample ${seq})`).toBe(seq);
      },
      { timeout: 15_000, interval: 20 },
    );
    const s = sample as { heapUsed: number; external: number; rss: number };
    return { live: s.heapUsed + s.external, rss: s.rss };
  };
}

/**
 * Preloaded into a daemon under test (see live-heap.ts). On SIGUSR2 it collects garbage and writes
 * the live heap to $HEAP_PROBE_FILE, so leak tests compare what is reachable instead of RSS,
 * which moves by tens of MB with allocator and collector timing.
 */
import { renameSync, writeFileSync } from 'node:fs';

const file = process.env.HEAP_PROBE_FILE;
const gc = globalThis.gc;
if (file !== undefined && typeof gc === 'function') {
  let seq = 0;
  process.on('SIGUSR2', () => {
    // Twice: the first pass runs finalizers whose objects the second one frees.
    gc();
    gc();
    const { heapUsed, external, rss } = process.memoryUsage();
    seq += 1;
    // Written whole, then renamed: the reader never sees half a file.
    writeFileSync(`${file}.tmp`, JSON.stringify({ seq, heapUsed, external, rss }));
    renameSync(`${file}.tmp`, file);
  });
}

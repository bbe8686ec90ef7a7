/** CPU time and resident memory of a process, from /proc (Linux). */
import { readdirSync, readFileSync } from 'node:fs';

const CLOCK_TICKS_PER_SECOND = 100;

/** User + system CPU seconds the process has used. */
export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name (which may hold spaces) start at the closing parenthesis.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND;
}

/** What a process's way of working costs the kernel, counted since it started. */
export interface KernelCounts {
  /** Read-like and write-like system calls (`syscr`/`syscw`: read, write, writev, …) of its threads. */
  reads: number;
  writes: number;
  /** Times its main thread went to sleep and was woken (voluntary context switches). */
  sleeps: number;
}

const field = (text: string, name: string): number =>
  Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(text)?.[1] ?? Number.NaN);

export function kernelCounts(pid: number): KernelCounts {
  // Per thread: the process's own /proc/PID/io also adds the children it has reaped (its agents).
  let reads = 0;
  let writes = 0;
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const io = readFileSync(`/proc/${pid}/task/${tid}/io`, 'utf8');
      reads += field(io, 'syscr');
      writes += field(io, 'syscw');
    } catch {
      // A thread that ended between the listing and the read.
    }
  }
  return {
    reads,
    writes,
    sleeps: field(readFileSync(`/proc/${pid}/status`, 'utf8'), 'voluntary_ctxt_switches'),
  };
}

/** Resident set size now, in bytes. */
export function rssBytes(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(match?.[1] ?? Number.NaN) * 1024;
}

/** Samples a process's RSS until stopped; answers the peak. */
export function sampleRss(pid: number, everyMs = 25): () => number {
  let peak = rssBytes(pid);
  const timer = setInterval(() => {
    try {
      peak = Math.max(peak, rssBytes(pid));
    } catch {
      // The process ended: the peak so far stands.
    }
  }, everyMs);
  return () => {
    clearInterval(timer);
    return peak;
  };
}

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
}

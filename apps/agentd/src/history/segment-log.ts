/**
 * Reading, checking and repairing a store file of checksummed JSON lines (line-codec.ts). A torn
 * last line (no newline: a write cut by `kill -9` or a full disk) is cut off; a whole line that fails
 * its checksum means the file was corrupted: the file is moved to `corrupt/` and its good lines kept.
 */
import { writeSync } from 'node:fs';
import { type FileHandle, mkdir, open, rename, truncate } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { Logger } from '@agentd/rpc-frame';
import { killMidWrite } from './kill-mid-write.js';
import { type ScannedLine, scanLines } from './line-codec.js';

const CHUNK = 1 << 16;

export interface ReadResult {
  size: number;
  /** Offset just past the last good line. */
  goodEnd: number;
  damaged: number;
}

/** Calls `onLine` for every verified line of the file, in order. A missing file reads as empty. */
/** `onLine` may return false to stop early (the result then describes the file up to there). */
export async function readLog(
  path: string,
  onLine: (line: ScannedLine) => boolean | undefined,
  from = 0,
): Promise<ReadResult> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(path, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { size: 0, goodEnd: 0, damaged: 0 };
    throw error;
  }
  try {
    const size = (await handle.stat()).size;
    let position = from;
    let carry = Buffer.alloc(0);
    let damaged = 0;
    let goodEnd = from;
    while (position < size) {
      const chunk = Buffer.allocUnsafe(Math.max(CHUNK, carry.length));
      const { bytesRead } = await handle.read(chunk, 0, chunk.length, position);
      if (bytesRead === 0) break;
      position += bytesRead;
      const buffer =
        carry.length === 0
          ? chunk.subarray(0, bytesRead)
          : Buffer.concat([carry, chunk.subarray(0, bytesRead)]);
      const base = position - buffer.length;
      const scan = scanLines(buffer, base);
      for (const line of scan.lines) {
        if (onLine(line) === false) return { size, goodEnd: line.offset + line.length, damaged };
      }
      damaged += scan.damaged;
      if (scan.lines.length > 0) goodEnd = scan.goodEnd;
      carry = Buffer.from(buffer.subarray(scan.consumed));
    }
    return { size, goodEnd, damaged };
  } finally {
    await handle.close();
  }
}

export interface CheckedLog {
  lines: ScannedLine[];
  /** The file's size after the check (its good lines only). */
  size: number;
}

/**
 * Reads a whole file and leaves only good lines in it: a torn tail is cut (a warning), damage
 * inside sets the file aside in `corruptDir` (an error naming both paths) and keeps its good lines.
 */
export async function checkLog(path: string, corruptDir: string, logger: Logger): Promise<CheckedLog> {
  const lines: ScannedLine[] = [];
  const read = await readLog(path, (line) => {
    lines.push(line);
    return true;
  });
  if (read.damaged > 0) {
    const aside = await setAside(path, corruptDir);
    logger.error('run store file is corrupted: set aside, its good lines kept', {
      component: 'history',
      path,
      setAside: aside,
      damagedLines: read.damaged,
    });
    const kept = await rewriteLines(aside, path, lines);
    return checkLog(kept, corruptDir, logger);
  }
  if (read.goodEnd < read.size) {
    await truncate(path, read.goodEnd);
    logger.warn('run store file ended in a partial write: cut off', {
      component: 'history',
      path,
      droppedBytes: read.size - read.goodEnd,
    });
  }
  return { lines, size: read.goodEnd };
}

export async function setAside(path: string, corruptDir: string): Promise<string> {
  await mkdir(corruptDir, { recursive: true, mode: 0o700 });
  const aside = join(corruptDir, `${basename(path)}.${new Date().toISOString().replace(/[:.]/g, '-')}`);
  await rename(path, aside);
  return aside;
}

/** Writes the given lines of `from` to `to` (through a temporary file, synced, then renamed). */
async function rewriteLines(from: string, to: string, lines: readonly ScannedLine[]): Promise<string> {
  const source = await open(from, 'r');
  const tmp = `${to}.tmp`;
  const target = await open(tmp, 'w', 0o600);
  try {
    for (const line of lines) {
      const buffer = Buffer.allocUnsafe(line.length);
      await source.read(buffer, 0, line.length, line.offset);
      await writeAll(target, buffer);
    }
    await target.sync();
  } finally {
    await source.close();
    await target.close();
  }
  await rename(tmp, to);
  return to;
}

/**
 * Writes all of `buffer`. A write may be short (a disk filling up part way): the rest is written
 * again, so the caller sees either the whole buffer written or the error (ENOSPC) that stopped it.
 */
export async function writeAll(handle: FileHandle, buffer: Buffer): Promise<void> {
  killMidWrite?.(handle.fd, buffer);
  let done = 0;
  while (done < buffer.length) {
    const { bytesWritten } = await handle.write(buffer, done, buffer.length - done);
    done += nonZero(bytesWritten);
  }
}

/**
 * `writeAll` on the calling thread, for the many small appends of event logs: an append goes to
 * the page cache in microseconds, while a trip through libuv's thread pool per run per tick cost
 * the daemon more CPU than the rest of recording an event (docs/performance.md).
 */
export function writeAllSync(fd: number, buffer: Buffer): void {
  killMidWrite?.(fd, buffer);
  let done = 0;
  while (done < buffer.length) done += nonZero(writeSync(fd, buffer, done, buffer.length - done));
}

function nonZero(bytesWritten: number): number {
  if (bytesWritten === 0)
    throw Object.assign(new Error('nothing written: no space left on device'), { code: 'ENOSPC' });
  return bytesWritten;
}

/** The run store's event logs: one append-only file of numbered, checksummed events per run. */
import { type FileHandle, open, readdir, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from '@agentd/rpc-frame';
import type { EventPage, StoredEvent } from './history-types.js';
import { encodeLine } from './line-codec.js';
import { checkLog, readLog, writeAllSync } from './segment-log.js';

interface EventFile {
  handle: FileHandle;
  size: number;
  lastSeq: number;
}

function lastSeqOf(json: string | undefined): number {
  if (json === undefined) return 0;
  const seq = (JSON.parse(json) as { seq?: unknown }).seq;
  return typeof seq === 'number' ? seq : 0;
}

/**
 * An event as waiting to be written: the JSON after its sequence number, which is given at write
 * time, once the file's last one is known (a continued run numbers on from its old log).
 */
export function pendingEvent(json: string, at: string): string {
  return `,"at":"${at}","event":${json}}`;
}

export class EventLogs {
  readonly dir: string;
  readonly #corrupt: string;
  readonly #logger: Logger;
  readonly #files = new Map<string, EventFile>();
  /** Where the last page read of a run ended, so paging through a long log reads it once. */
  readonly #readAt = new Map<string, { seq: number; offset: number }>();

  constructor(dir: string, corrupt: string, logger: Logger) {
    this.dir = dir;
    this.#corrupt = corrupt;
    this.#logger = logger;
  }

  path(runId: string): string {
    return join(this.dir, `${runId}.jsonl`);
  }

  isOpen(runId: string): boolean {
    return this.#files.has(runId);
  }

  /** Every log's size by run id (`.jsonl` files only); other files are removed. */
  async sizes(): Promise<Map<string, number>> {
    const sizes = new Map<string, number>();
    for (const name of await readdir(this.dir)) {
      const path = join(this.dir, name);
      if (name.endsWith('.jsonl')) sizes.set(name.slice(0, -'.jsonl'.length), (await stat(path)).size);
      else await unlink(path).catch(() => {});
    }
    return sizes;
  }

  /**
   * Appends `pending` events; resolves with the file's size after. On failure a partial write is
   * taken back (so later events never follow a torn one) and the error thrown.
   */
  async write(runId: string, pending: readonly string[]): Promise<number> {
    const file = await this.#open(runId);
    let seq = file.lastSeq;
    const buffer = Buffer.concat(pending.map((line) => encodeLine(`{"seq":${++seq}${line}`)));
    try {
      writeAllSync(file.handle.fd, buffer);
    } catch (error) {
      await file.handle.truncate(file.size).catch(() => {});
      throw error;
    }
    file.size += buffer.length;
    file.lastSeq = seq;
    return file.size;
  }

  /** Checks a log (a torn tail cut, damage set aside); resolves with its size after. */
  async check(runId: string): Promise<number> {
    const file = this.#files.get(runId);
    if (file !== undefined) return file.size;
    return (await checkLog(this.path(runId), this.#corrupt, this.#logger)).size;
  }

  async close(runId: string, sync: boolean): Promise<void> {
    const file = this.#files.get(runId);
    if (file === undefined) return;
    this.#files.delete(runId);
    if (sync) await file.handle.sync().catch(() => {});
    await file.handle.close().catch(() => {});
  }

  async closeAll(): Promise<void> {
    for (const runId of [...this.#files.keys()]) await this.close(runId, true);
  }

  async remove(runId: string): Promise<void> {
    await this.close(runId, false);
    this.#readAt.delete(runId);
    await unlink(this.path(runId)).catch(() => {});
  }

  /** Events after `after`, at most `limit`, in order. */
  async read(runId: string, after: number, limit: number): Promise<EventPage> {
    const events: StoredEvent[] = [];
    const cached = this.#readAt.get(runId);
    const from = cached !== undefined && cached.seq === after ? cached.offset : 0;
    let end = from;
    await readLog(
      this.path(runId),
      (line) => {
        const stored = JSON.parse(line.json) as StoredEvent;
        if (stored.seq <= after) return true;
        events.push(stored);
        end = line.offset + line.length;
        return events.length < limit;
      },
      from,
    );
    const last = events[events.length - 1];
    if (last === undefined) return { events };
    this.#readAt.delete(runId);
    this.#readAt.set(runId, { seq: last.seq, offset: end });
    if (this.#readAt.size > 64) this.#readAt.delete(this.#readAt.keys().next().value as string);
    return events.length === limit ? { events, next: last.seq } : { events };
  }

  async #open(runId: string): Promise<EventFile> {
    const known = this.#files.get(runId);
    if (known !== undefined) return known;
    const path = this.path(runId);
    const checked = await checkLog(path, this.#corrupt, this.#logger);
    const handle = await open(path, 'a', 0o600);
    const file = { handle, size: checked.size, lastSeq: lastSeqOf(checked.lines.at(-1)?.json) };
    this.#files.set(runId, file);
    return file;
  }
}

/**
 * The run store's index file: an append-only log of run records (the last line of a run wins, a
 * `$deleted` line removes it), a format header first, compacted to one line per run.
 */
import { type FileHandle, open, rename } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Logger } from '@agentd/rpc-frame';
import type { HistoryIndex, IndexEntry } from './history-index.js';
import type { StoredRecord } from './history-types.js';
import { encodeLine, scanLines } from './line-codec.js';
import { checkLog, setAside, writeAll } from './segment-log.js';

const HEADER = JSON.stringify({ $format: 'agentd-run-index', version: 1 });

export interface LineAt {
  offset: number;
  length: number;
}

export class IndexLog {
  readonly path: string;
  readonly #corrupt: string;
  readonly #logger: Logger;
  #file: FileHandle | undefined;
  /** Bytes of whole lines in the file. */
  size = 0;
  lines = 0;

  constructor(path: string, corrupt: string, logger: Logger) {
    this.path = path;
    this.#corrupt = corrupt;
    this.#logger = logger;
  }

  get open(): boolean {
    return this.#file !== undefined;
  }

  /** Reads the file into `index` (damage set aside, a torn tail cut), then opens it for appending. */
  async load(index: HistoryIndex, valid: (value: unknown) => value is StoredRecord): Promise<void> {
    let checked = await checkLog(this.path, this.#corrupt, this.#logger);
    const first = checked.lines[0];
    if (first !== undefined && first.json !== HEADER) {
      const aside = await setAside(this.path, this.#corrupt);
      this.#logger.error('run store index is not one this agentd reads: set aside, starting afresh', {
        component: 'history',
        path: this.path,
        setAside: aside,
      });
      checked = { lines: [], size: 0 };
    }
    this.size = checked.size;
    this.lines = checked.lines.length;
    for (const line of checked.lines.slice(1)) {
      const value = JSON.parse(line.json) as { $deleted?: unknown };
      if (typeof value.$deleted === 'string') index.remove(value.$deleted);
      else if (valid(value)) index.upsert(value).loc = { offset: line.offset, length: line.length };
    }
    // Compacted at every start unless it is already one line per run.
    if (this.lines === index.size + 1) this.#file = await open(this.path, 'a', 0o600);
    else await this.compact(index);
  }

  /** Appends whole lines; on failure takes back a partial write and throws. */
  async append(lines: readonly Buffer[]): Promise<LineAt[]> {
    const file = this.#file;
    if (file === undefined) throw new Error('the run store index is not open');
    const buffer = Buffer.concat(lines);
    try {
      await writeAll(file, buffer);
    } catch (error) {
      await file.truncate(this.size).catch(() => {});
      throw error;
    }
    let offset = this.size;
    this.size += buffer.length;
    this.lines += lines.length;
    return lines.map((line) => {
      const at = { offset, length: line.length };
      offset += line.length;
      return at;
    });
  }

  appendRecords(records: readonly StoredRecord[]): Promise<LineAt[]> {
    return this.append(records.map((record) => encodeLine(JSON.stringify(record))));
  }

  appendDeletions(runIds: readonly string[]): Promise<LineAt[]> {
    return this.append(runIds.map((runId) => encodeLine(JSON.stringify({ $deleted: runId }))));
  }

  /** The record at `at`; undefined (and a warning) when it cannot be read back whole. */
  async read(at: LineAt, handle?: FileHandle): Promise<StoredRecord | undefined> {
    const buffer = Buffer.alloc(at.length);
    try {
      const reader = handle ?? (await open(this.path, 'r'));
      try {
        await reader.read(buffer, 0, buffer.length, at.offset);
      } finally {
        if (handle === undefined) await reader.close();
      }
    } catch (error) {
      this.#logger.warn('run record not readable', {
        component: 'history',
        path: this.path,
        error: String(error),
      });
      return undefined;
    }
    const json = scanLines(buffer, 0).lines[0]?.json;
    return json === undefined ? undefined : (JSON.parse(json) as StoredRecord);
  }

  /** Rewrites the file with one line per run (through a synced temporary file and a rename). */
  async compact(index: HistoryIndex): Promise<void> {
    const lines: Buffer[] = [encodeLine(HEADER)];
    const entries = index.entries().filter((entry) => entry.full !== undefined || entry.loc !== undefined);
    const reader = this.size > 0 ? await open(this.path, 'r').catch(() => undefined) : undefined;
    try {
      for (const entry of entries) lines.push(encodeLine(JSON.stringify(await this.#latest(entry, reader))));
    } finally {
      await reader?.close();
    }
    const tmp = `${this.path}.tmp`;
    const out = await open(tmp, 'w', 0o600);
    try {
      await writeAll(out, Buffer.concat(lines));
      await out.sync();
    } finally {
      await out.close();
    }
    await this.#file?.close().catch(() => {});
    this.#file = undefined;
    await rename(tmp, this.path);
    await syncDir(dirname(this.path));
    this.#file = await open(this.path, 'a', 0o600);
    let offset = (lines[0] as Buffer).length;
    entries.forEach((entry, i) => {
      const length = (lines[i + 1] as Buffer).length;
      entry.loc = { offset, length };
      entry.full = undefined;
      offset += length;
    });
    this.size = offset;
    this.lines = lines.length;
  }

  async #latest(entry: IndexEntry, reader: FileHandle | undefined): Promise<StoredRecord> {
    if (entry.full !== undefined) return entry.full;
    const read = entry.loc === undefined ? undefined : await this.read(entry.loc, reader);
    return read ?? entry.summary;
  }

  async sync(): Promise<void> {
    await this.#file?.sync().catch(() => {});
  }

  async close(): Promise<void> {
    await this.sync();
    await this.#file?.close().catch(() => {});
    this.#file = undefined;
  }
}

async function syncDir(path: string): Promise<void> {
  // A rename is durable once its directory is synced; not every file system allows it.
  const handle = await open(path, 'r').catch(() => undefined);
  await handle?.sync().catch(() => {});
  await handle?.close();
}

/** Watches the config file's directory (editors and ConfigMaps replace files atomically) and reports real content changes. */
import { createHash } from 'node:crypto';
import { type FSWatcher, readFileSync, watch } from 'node:fs';
import { dirname } from 'node:path';

function digest(path: string): string | undefined {
  try {
    return createHash('sha256').update(readFileSync(path)).digest('hex');
  } catch {
    return undefined;
  }
}

export class ConfigWatcher {
  #watcher: FSWatcher | undefined;
  #timer: NodeJS.Timeout | undefined;
  #last: string | undefined;

  constructor(
    private readonly path: string,
    private readonly onChange: () => void,
    private readonly debounceMs = 150,
  ) {
    this.#last = digest(path);
  }

  start(): void {
    if (this.#watcher !== undefined) return;
    // Any entry of the directory counts: Kubernetes ConfigMaps swap a `..data` symlink rather
    // than the file itself. The content digest decides whether anything really changed.
    this.#watcher = watch(dirname(this.path), { persistent: false }, () => {
      clearTimeout(this.#timer);
      this.#timer = setTimeout(() => this.#check(), this.debounceMs);
    });
    this.#watcher.on('error', () => this.stop());
  }

  /** Call after any reload (SIGHUP included) so the watcher does not re-apply the same bytes. */
  markSeen(): void {
    this.#last = digest(this.path);
  }

  stop(): void {
    clearTimeout(this.#timer);
    this.#watcher?.close();
    this.#watcher = undefined;
  }

  #check(): void {
    const now = digest(this.path);
    // A half-written or momentarily missing file is not a change yet; the next event will come.
    if (now === undefined || now === this.#last) return;
    this.#last = now;
    this.onChange();
  }
}

/**
 * A run's streamed lines on the page, bounded (newest kept). agentd serves the live tail (the last
 * lines of a plain run) in each status read; successive tails overlap, so each read appends only
 * what is new, and a read that missed lines between two polls marks the gap.
 */

export interface OutputLine {
  stream: 'stdout' | 'stderr' | 'gap';
  text: string;
}

const same = (a: OutputLine | undefined, b: OutputLine | undefined) =>
  a !== undefined && b !== undefined && a.stream === b.stream && a.text === b.text;

export class OutputBuffer {
  #lines: OutputLine[] = [];
  #lastTail: OutputLine[] = [];
  #version = 0;

  constructor(readonly maxLines = 1000) {}

  get lines(): readonly OutputLine[] {
    return this.#lines;
  }

  /** Grows with every line added, so a view re-renders exactly when something changed. */
  get version(): number {
    return this.#version;
  }

  /** Folds in the next tail snapshot; returns whether anything was added. */
  merge(tail: readonly OutputLine[]): boolean {
    const previous = this.#lastTail;
    this.#lastTail = [...tail];
    let overlap = 0;
    if (previous.length > 0 && tail.length > 0) {
      // The window only slides forward: find the longest end of the previous tail the new one starts with.
      for (let k = Math.min(previous.length, tail.length); k > 0; k--) {
        let match = true;
        for (let i = 0; i < k && match; i++) match = same(previous[previous.length - k + i], tail[i]);
        if (match) {
          overlap = k;
          break;
        }
      }
      if (overlap === 0) this.#push({ stream: 'gap', text: '… (lines skipped)' });
    }
    const fresh = tail.slice(overlap);
    for (const line of fresh) this.#push(line);
    return fresh.length > 0;
  }

  #push(line: OutputLine): void {
    this.#lines.push(line);
    this.#version++;
    if (this.#lines.length > this.maxLines) this.#lines.splice(0, this.#lines.length - this.maxLines);
  }
}

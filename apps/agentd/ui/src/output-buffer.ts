/**
 * A run's lines on the page, bounded (newest kept). They come two ways: streamed one by one while
 * the page follows the run (`push`), or as the live tail each status read carries (`merge`).
 * Tails overlap what is shown, so a merge lines the tail up against the shown lines and adds only
 * what is new; a tail that shares nothing with them marks the gap.
 */
import type { Json } from './connection.js';

export interface OutputLine {
  stream: 'stdout' | 'stderr' | 'gap';
  text: string;
}

/** How far back a tail is lined up: well past agentd's tail (50 lines), for a tail read late. */
const ALIGN_WINDOW = 200;

const same = (a: OutputLine | undefined, b: OutputLine | undefined) =>
  a !== undefined && b !== undefined && a.stream === b.stream && a.text === b.text;

export class OutputBuffer {
  #lines: OutputLine[] = [];
  #version = 0;

  constructor(readonly maxLines = 1000) {}

  get lines(): readonly OutputLine[] {
    return this.#lines;
  }

  /** Grows with every change, so a view re-renders exactly when something changed. */
  get version(): number {
    return this.#version;
  }

  /** Folds in a tail snapshot; returns whether anything was added. */
  merge(tail: readonly OutputLine[]): boolean {
    if (tail.length === 0) return false;
    const shown = this.#lines;
    // The earliest place the tail matches up to where either ends: the longest overlap.
    for (let at = Math.max(0, shown.length - ALIGN_WINDOW); at < shown.length; at++) {
      const overlap = Math.min(shown.length - at, tail.length);
      let match = true;
      for (let i = 0; i < overlap && match; i++) match = same(shown[at + i], tail[i]);
      if (!match) continue;
      const fresh = tail.slice(overlap);
      for (const line of fresh) this.push(line);
      return fresh.length > 0;
    }
    if (shown.length > 0) this.push({ stream: 'gap', text: '… (lines skipped)' });
    for (const line of tail) this.push(line);
    return true;
  }

  /** One streamed line, as it arrived. */
  push(line: OutputLine): void {
    this.#lines.push(line);
    this.#version++;
    if (this.#lines.length > this.maxLines) this.#lines.splice(0, this.#lines.length - this.maxLines);
  }

  /** Forgets the lines: a stream that starts with the run's tail again replaces them. */
  reset(): void {
    this.#lines = [];
    this.#version++;
  }
}

/** The line a streamed notification carries: stdout as progress messages, stderr (and agent logs) as log messages. */
export function lineOfNotification(notification: Json): OutputLine | undefined {
  const params = (notification.params ?? {}) as Json;
  if (notification.method === 'notifications/progress')
    return typeof params.message === 'string' ? { stream: 'stdout', text: params.message } : undefined;
  if (notification.method !== 'notifications/message') return undefined;
  const data = params.data;
  return { stream: 'stderr', text: typeof data === 'string' ? data : JSON.stringify(data) };
}

/**
 * A child's output as lines, the same for every mode: each stdout/stderr line is handed on as it
 * comes and the last ones are kept in a bounded tail readable mid-run.
 */
import type { PlainTailLine } from './types.js';

/** Lines kept in the live tail, and characters kept of one line (the tail stays small however chatty the agent). */
export const TAIL_LINES = 50;
const TAIL_LINE_CHARS = 1000;

/** Splits a byte stream into lines; a line longer than the cap is cut (its rest is skipped). */
class LineSplitter {
  #partial = '';
  #decoder = new TextDecoder();
  constructor(private readonly onLine: (line: string) => void) {}

  push(chunk: Buffer): void {
    const text = this.#partial + this.#decoder.decode(chunk, { stream: true });
    const lines = text.split('\n');
    this.#partial = lines.pop() ?? '';
    // A line without an end yet is bounded too: a child printing no newline cannot grow it forever.
    if (this.#partial.length > TAIL_LINE_CHARS * 4) this.#partial = this.#partial.slice(0, TAIL_LINE_CHARS);
    for (const line of lines) this.onLine(line.endsWith('\r') ? line.slice(0, -1) : line);
  }

  end(): void {
    const rest = this.#partial + this.#decoder.decode();
    this.#partial = '';
    if (rest !== '') this.onLine(rest);
  }
}

export class OutputLines {
  readonly #tail: PlainTailLine[] = [];
  readonly #splitters: Record<PlainTailLine['stream'], LineSplitter>;

  /** `onLine` gets each line as kept (cut to the per-line cap). */
  constructor(onLine: (stream: PlainTailLine['stream'], text: string) => void) {
    const keep = (stream: PlainTailLine['stream']) => (line: string) => {
      const text = line.length > TAIL_LINE_CHARS ? `${line.slice(0, TAIL_LINE_CHARS)}…` : line;
      this.#tail.push({ stream, text });
      if (this.#tail.length > TAIL_LINES) this.#tail.shift();
      onLine(stream, text);
    };
    this.#splitters = { stdout: new LineSplitter(keep('stdout')), stderr: new LineSplitter(keep('stderr')) };
  }

  /** Follows `stream` until it ends (its last unterminated line included). */
  follow(stream: PlainTailLine['stream'], from: NodeJS.ReadableStream): void {
    from.on('data', (chunk: Buffer) => this.push(stream, chunk));
    from.on('end', () => this.#splitters[stream].end());
  }

  push(stream: PlainTailLine['stream'], chunk: Buffer): void {
    this.#splitters[stream].push(chunk);
  }

  end(stream: PlainTailLine['stream']): void {
    this.#splitters[stream].end();
  }

  /** The last lines, oldest first. */
  tail(): PlainTailLine[] {
    return this.#tail.map((line) => ({ ...line }));
  }
}

/** The run event an output line becomes (a plain run's stdout, any agent's stderr): a `message` marked with its stream. */
export function lineEvent(
  stream: PlainTailLine['stream'],
  text: string,
): { type: 'message'; text: string; stream: PlainTailLine['stream'] } {
  return { type: 'message', text, stream };
}

/** Whether `event` is an output line (a `message` marked with its stream), not the agent's own message. */
export function isOutputLine(event: {
  type: string;
  [key: string]: unknown;
}): event is { type: 'message'; text: string; stream: PlainTailLine['stream'] } {
  return (
    event.type === 'message' &&
    typeof event.text === 'string' &&
    (event.stream === 'stdout' || event.stream === 'stderr')
  );
}

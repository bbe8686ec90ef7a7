/**
 * Plain mode: the instruction goes to stdin (or into the arguments), stdout is the result, and
 * every stdout/stderr line streams as it comes: an event for the waiting caller and a bounded
 * tail readable mid-run.
 */
import type { ChildHost } from './child-host.js';
import { type ExitFacts, type Outcome, plainOutcome, stripFinalNewline, tooLarge } from './exit-outcome.js';
import { Run } from './run.js';
import type { Ending } from './run-record.js';
import type { AgentEvent, AgentProfile, PlainTailLine } from './types.js';

/** Where a plain profile's `args` take the instruction, for CLIs that want the prompt as an argument. */
export const INSTRUCTION_PLACEHOLDER = '{instruction}';

/** Lines kept in the live tail, and characters kept of one line (the tail stays small however chatty the agent). */
export const TAIL_LINES = 50;
export const TAIL_LINE_CHARS = 1000;

/** The profile to start: `{instruction}` in `args` replaced; `stdin` is what the child reads. */
export function plainInvocation(
  profile: Readonly<AgentProfile>,
  instruction: string,
): { profile: AgentProfile; stdin: string } {
  const args = profile.args ?? [];
  if (!args.some((arg) => arg.includes(INSTRUCTION_PLACEHOLDER)))
    return { profile: { ...profile }, stdin: instruction };
  // The instruction travels as an argument: stdin gets EOF at once so the CLI does not wait for input.
  const placed = args.map((arg) => arg.replaceAll(INSTRUCTION_PLACEHOLDER, instruction));
  return { profile: { ...profile, args: placed }, stdin: '' };
}

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

export interface PlainRunOptions {
  maxOutputBytes: number;
  /** Each line of stdout (`progress`) or stderr (`log`), as an agent event for the waiting caller. */
  onEvent: (event: AgentEvent) => void;
  /** stdout went past maxOutputBytes: the run must be killed (what came before the cap is kept). */
  onOverflow: () => void;
}

export interface PlainCapture {
  /** stdout so far, at most maxOutputBytes (cut there when the child wrote more). */
  output(): string;
  /** The last lines of stdout and stderr, oldest first. */
  tail(): PlainTailLine[];
}

export function capturePlainRun(host: ChildHost, stdin: string, options: PlainRunOptions): PlainCapture {
  const chunks: Buffer[] = [];
  let size = 0;
  let overflowed = false;
  let stdoutLines = 0;
  const tail: PlainTailLine[] = [];
  const keep = (stream: PlainTailLine['stream'], line: string): string => {
    const text = line.length > TAIL_LINE_CHARS ? `${line.slice(0, TAIL_LINE_CHARS)}…` : line;
    tail.push({ stream, text });
    if (tail.length > TAIL_LINES) tail.shift();
    return text;
  };
  const stdoutLinesOf = new LineSplitter((line) => {
    const text = keep('stdout', line);
    stdoutLines += 1;
    options.onEvent({ type: 'progress', progress: stdoutLines, message: text, stream: 'stdout' });
  });
  const stderrLinesOf = new LineSplitter((line) => {
    const text = keep('stderr', line);
    options.onEvent({ type: 'log', level: 'info', message: text, stream: 'stderr' });
  });

  host.child.stdout.on('data', (chunk: Buffer) => {
    if (overflowed) return;
    const room = options.maxOutputBytes - size;
    if (chunk.length > room) {
      // Keep the output up to the cap, as the agent protocol promises for failed runs.
      overflowed = true;
      if (room > 0) chunks.push(chunk.subarray(0, room));
      size = options.maxOutputBytes;
      stdoutLinesOf.push(chunk.subarray(0, Math.max(room, 0)));
      options.onOverflow();
      return;
    }
    chunks.push(chunk);
    size += chunk.length;
    stdoutLinesOf.push(chunk);
  });
  host.child.stdout.on('end', () => stdoutLinesOf.end());
  host.child.stderr.on('data', (chunk: Buffer) => stderrLinesOf.push(chunk));
  host.child.stderr.on('end', () => stderrLinesOf.end());
  host.child.stdin.end(stdin);

  return {
    // A cut in the middle of a multi-byte character decodes to U+FFFD, never to invalid text.
    output: () => Buffer.concat(chunks).toString('utf8'),
    tail: () => tail.map((line) => ({ ...line })),
  };
}

/** A plain-mode run: one child, no protocol; its exit decides the outcome. */
export class PlainRun extends Run {
  private stdin = '';
  private capture: PlainCapture | undefined;

  protected childProfile(instruction: string): AgentProfile {
    const invocation = plainInvocation(this.record.profile, instruction);
    this.stdin = invocation.stdin;
    return invocation.profile;
  }

  protected attach(host: ChildHost): void {
    const max = this.context.limits().maxOutputBytes;
    this.capture = capturePlainRun(host, this.stdin, {
      maxOutputBytes: max,
      // A plain run's output line: for the waiting caller only (the daemon log is not the agent's stdout).
      onEvent: (event) => this.emitEvent(event),
      onOverflow: () => void this.terminate(tooLarge(max)),
    });
    this.armTimer(this.record.timeoutMs);
  }

  protected override tail(): PlainTailLine[] | undefined {
    return this.capture?.tail();
  }

  /** Plain mode keeps the stdout it got (up to the cap) however the run ended. */
  protected override decided(ending: Ending, facts: ExitFacts): Outcome {
    const decided = super.decided(ending, facts);
    if (this.capture !== undefined) decided.fields.output = stripFinalNewline(this.capture.output());
    return decided;
  }

  protected exitOutcome(facts: ExitFacts): Outcome {
    const outcome = plainOutcome(facts, this.capture?.output() ?? '');
    if (outcome.state === 'succeeded') {
      this.record.turns = 1;
      this.emitTurn();
    }
    return outcome;
  }
}

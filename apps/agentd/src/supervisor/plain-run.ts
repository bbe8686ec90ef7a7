/**
 * Plain mode: the instruction goes to stdin (or into the arguments), stdout is the result, and
 * every stdout/stderr line streams as it comes: an event for the waiting caller and a bounded
 * tail readable mid-run.
 */
import type { ChildHost } from './child-host.js';
import { type ExitFacts, type Outcome, plainOutcome, stripFinalNewline, tooLarge } from './exit-outcome.js';
import { lineEvent, OutputLines } from './output-lines.js';
import { Run } from './run.js';
import type { Ending } from './run-record.js';
import type { AgentEvent, AgentProfile, PlainTailLine } from './types.js';

/** Where a plain profile's `args` take the instruction, for CLIs that want the prompt as an argument. */
const INSTRUCTION_PLACEHOLDER = '{instruction}';

/** The profile to start: `{instruction}` in `args` replaced; `stdin` is what the child reads. */
function plainInvocation(
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

interface PlainRunOptions {
  maxOutputBytes: number;
  /** Each line of stdout or stderr, as a `message` run event marked with its stream. */
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

function capturePlainRun(host: ChildHost, stdin: string, options: PlainRunOptions): PlainCapture {
  const chunks: Buffer[] = [];
  let size = 0;
  let overflowed = false;
  const lines = new OutputLines((stream, text) => options.onEvent(lineEvent(stream, text)));

  host.child.stdout.on('data', (chunk: Buffer) => {
    if (overflowed) return;
    const room = options.maxOutputBytes - size;
    if (chunk.length > room) {
      // Keep the output up to the cap, as the agent protocol promises for failed runs.
      overflowed = true;
      if (room > 0) chunks.push(chunk.subarray(0, room));
      size = options.maxOutputBytes;
      lines.push('stdout', chunk.subarray(0, Math.max(room, 0)));
      options.onOverflow();
      return;
    }
    chunks.push(chunk);
    size += chunk.length;
    lines.push('stdout', chunk);
  });
  host.child.stdout.on('end', () => lines.end('stdout'));
  lines.follow('stderr', host.child.stderr);
  host.child.stdin.end(stdin);

  return {
    // A cut in the middle of a multi-byte character decodes to U+FFFD, never to invalid text.
    output: () => Buffer.concat(chunks).toString('utf8'),
    tail: () => lines.tail(),
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

/**
 * How the CLI draws on a terminal: interactive rendering only when both stdout and stderr are a
 * terminal, colour only there and never with NO_COLOR (https://no-color.org) or TERM=dumb.
 * Piped output stays plain text, byte for byte what scripts have always read.
 */

export interface TermStyle {
  /** stdout and stderr are both a terminal: one stream shown once, a live status line. */
  interactive: boolean;
  /** Colour on stdout (the answer) and on stderr (progress, errors). */
  colourOut: boolean;
  colourErr: boolean;
  /** `--color-agent-output`: an agent's own SGR colours pass (on a colour terminal); all else stays inert. */
  agentColours?: boolean;
}

export const PLAIN_STYLE: TermStyle = { interactive: false, colourOut: false, colourErr: false };

export function termStyle(env: NodeJS.ProcessEnv, stdoutTty: boolean, stderrTty: boolean): TermStyle {
  // NO_COLOR counts when present and not empty.
  const colour = env.NO_COLOR === undefined || env.NO_COLOR === '' ? env.TERM !== 'dumb' : false;
  return {
    interactive: stdoutTty && stderrTty,
    colourOut: colour && stdoutTty,
    colourErr: colour && stderrTty,
  };
}

const SGR = { red: 31, green: 32, yellow: 33, cyan: 36, dim: 2, bold: 1 } as const;

export type Tint = keyof typeof SGR;

export function tint(on: boolean, colour: Tint, text: string): string {
  return on ? `\u001b[${SGR[colour]}m${text}\u001b[0m` : text;
}

/** The colour a run state is shown in: green done, red failed, yellow stopped, cyan live. */
function stateTint(state: string): Tint {
  if (state === 'succeeded') return 'green';
  if (state === 'failed' || state === 'timed_out' || state === 'lost') return 'red';
  if (state === 'cancelled') return 'yellow';
  return 'cyan';
}

/** A state word painted by its colour, or as it is when colour is off. */
export const paintState = (on: boolean, state: string, text = state): string =>
  tint(on, stateTint(state), text);

/** Erases the terminal line the cursor is on (the live status line). */
export const CLEAR_LINE = '\r\u001b[2K';

/** Where a client command writes, and how it reports a refusal there. */
import { pretty } from './format.js';
import { inert } from './inert-text.js';
import { EXIT_TRUNCATED } from './truncation.js';

export interface Output {
  out(text: string): void;
  err(text: string): void;
}

/** Exit codes (documented in `agentd --help`). */
export const EXIT = { ok: 0, failed: 1, usage: 2, waitTimedOut: 3, truncated: EXIT_TRUNCATED } as const;

/** A refused or failed operation: its text on stderr (inert: it may quote an agent), exit 1. */
export function refused(io: Output, json: boolean, value: unknown): number {
  if (json) io.out(pretty({ error: value }));
  io.err(`agentd: ${inert(typeof value === 'string' ? value : JSON.stringify(value))}\n`);
  return EXIT.failed;
}

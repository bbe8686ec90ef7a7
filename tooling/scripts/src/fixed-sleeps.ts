/**
 * Finds fixed sleeps in test code (issue 25): a test waits on the event it needs (`once(…)`, a
 * promise the code resolves, a stream line, `vi.waitFor` with a message) or uses fake timers, never
 * the clock. A sleep is allowed only where the duration itself is the point, and says so with
 * SLEEP_MARKER on its line or within the three lines above it; a helper
 * (`function sleep(ms) {…}`) marked so marks its calls in the same file.
 */

export const SLEEP_MARKER = 'sleep-is-the-point:';

export interface Sleep {
  line: number;
  text: string;
  /** It carries SLEEP_MARKER (calls of a helper so marked are not listed: its own sleep is). */
  marked: boolean;
}

/** Names a sleep usually goes by, besides the aliases a file imports `setTimeout` under. */
const SLEEP_NAMES = ['setTimeout', 'sleep', 'delay', 'pause'];

/**
 * Each line of `code` that sleeps: `await setTimeout(…)` from node:timers/promises (under any
 * imported alias), `await sleep(…)`-style calls, and a promise resolved by a timer
 * (`new Promise((r) => setTimeout(r, …))`), which is how a hand-rolled `waitUntil` loop sleeps.
 */
export function fixedSleeps(code: string): Sleep[] {
  const names = new Set(SLEEP_NAMES);
  for (const match of code.matchAll(/\bsetTimeout\s+as\s+(\w+)/g)) names.add(match[1] as string);
  const call = new RegExp(`\\bawait\\s+(?:${[...names].join('|')})\\s*(?:<[^>]*>)?\\(`);
  // A timer whose callback is a promise's resolver: `new Promise((r) => setTimeout(r, 50))`, or
  // the `setTimeout(resolve, 50)` line of one spread over lines. A deadline (a timer that rejects)
  // is not a sleep.
  const timerPromise =
    /new\s+Promise\s*(?:<[^>]*>)?\(\s*\(?\s*(\w+)\s*\)?\s*=>\s*\{?\s*(?:globalThis\.)?setTimeout\(\s*(?:\1\b|\(\)\s*=>\s*\1\()/;
  const resolverTimer = /\bsetTimeout\(\s*(?:resolve|res|r|done|ok|wake)\s*,/;
  const lines = code.split('\n');
  const found: Sleep[] = [];
  /** Helpers whose own sleep is marked: their callers are marked with them. */
  const markedHelpers = new Set<string>();
  for (const [index, text] of lines.entries()) {
    const code = text.replace(/\/\/.*$/, '');
    // A call of a marked helper is that helper's sleep, listed once where it is defined.
    if (callsHelper(code, markedHelpers)) continue;
    if (!call.test(code) && !timerPromise.test(code) && !resolverTimer.test(code)) continue;
    const context = lines.slice(Math.max(0, index - 3), index + 1);
    const marked = context.join('\n').includes(SLEEP_MARKER);
    if (marked) {
      for (const line of context.reverse()) {
        const defined = HELPER_DEFINITION.exec(line);
        if (defined === null) continue;
        markedHelpers.add((defined[1] ?? defined[2]) as string);
        break;
      }
    }
    found.push({ line: index + 1, text: text.trim(), marked });
  }
  return found;
}

/** `function sleep(` or `const sleep = (…) =>` / `= function`. */
const HELPER_DEFINITION =
  /\bfunction\s+(\w+)\s*\(|\b(?:const|let)\s+(\w+)\s*=\s*(?:async\s*)?(?:\([^)]*\)[^=]*=>|function\b)/;

function callsHelper(code: string, helpers: ReadonlySet<string>): boolean {
  for (const name of helpers) if (new RegExp(`\\bawait\\s+${name}\\s*\\(`).test(code)) return true;
  return false;
}

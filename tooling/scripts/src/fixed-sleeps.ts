/**
 * Finds fixed sleeps and hand-rolled polling helpers in test code (issue 25): a test waits on the
 * event it needs (`once(…)`, a promise the code resolves, a stream line, `vi.waitFor` with a
 * message) or uses fake timers, never the clock. A sleep is allowed only where the duration itself
 * is the point, and says so with SLEEP_MARKER on its line or within the three lines above it; a
 * helper (`function sleep(ms) {…}`) marked so marks its calls in the same file. A polling helper
 * takes the same marker on (or just above) its first line.
 */
import ts from 'typescript';

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
  return scanSleeps(code).found;
}

/** The sleeps in `code`, and the helpers whose own sleep is marked (their calls are not sleeps). */
function scanSleeps(code: string): { found: Sleep[]; markedHelpers: Set<string> } {
  const { call, timerPromise, resolverTimer } = sleepPatterns(code);
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
  return { found, markedHelpers };
}

/** The shapes of a sleep in `code`: an awaited call, a timer-resolved promise, its resolver line. */
function sleepPatterns(code: string): { call: RegExp; timerPromise: RegExp; resolverTimer: RegExp } {
  const names = new Set(SLEEP_NAMES);
  for (const match of code.matchAll(/\bsetTimeout\s+as\s+(\w+)/g)) names.add(match[1] as string);
  const call = new RegExp(`\\bawait\\s+(?:${[...names].join('|')})\\s*(?:<[^>]*>)?\\(`);
  // A timer whose callback is a promise's resolver: `new Promise((r) => setTimeout(r, 50))`, or
  // the `setTimeout(resolve, 50)` line of one spread over lines. A deadline (a timer that rejects)
  // is not a sleep.
  const timerPromise =
    /new\s+Promise\s*(?:<[^>]*>)?\(\s*\(?\s*(\w+)\s*\)?\s*=>\s*\{?\s*(?:globalThis\.)?setTimeout\(\s*(?:\1\b|\(\)\s*=>\s*\1\()/;
  const resolverTimer = /\bsetTimeout\(\s*(?:resolve|res|r|done|ok|wake)\s*,/;
  return { call, timerPromise, resolverTimer };
}

/** `function sleep(` or `const sleep = (…) =>` / `= function`. */
const HELPER_DEFINITION =
  /\bfunction\s+(\w+)\s*\(|\b(?:const|let)\s+(\w+)\s*=\s*(?:async\s*)?(?:\([^)]*\)[^=]*=>|function\b)/;

function callsHelper(code: string, helpers: ReadonlySet<string>): boolean {
  for (const name of helpers) if (new RegExp(`\\bawait\\s+${name}\\s*\\(`).test(code)) return true;
  return false;
}

/**
 * Each named function in `code` that polls the clock: one whose own body loops over an awaited
 * timer (`while (!ready()) await sleep(5)`), or one that re-arms a timer on itself
 * (`const tick = () => { if (test()) resolve(); else setTimeout(tick, 5); }`). Listed at the
 * function's first line; marked when SLEEP_MARKER is on that line, the three above it, or those of
 * a function around it (`waitUntil` holding its `tick`).
 */
export function pollingHelpers(code: string): Sleep[] {
  const { call, timerPromise, resolverTimer } = sleepPatterns(code);
  // A loop over a marked helper's sleep (a tool that reports progress every 5 ms) paces, not polls.
  const { markedHelpers } = scanSleeps(code);
  const source = ts.createSourceFile('test.ts', code, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const lines = code.split('\n');
  const isTimerAwait = (node: ts.AwaitExpression): boolean => {
    const text = `await ${node.expression.getText(source)}`;
    if (callsHelper(text, markedHelpers)) return false;
    return call.test(text) || timerPromise.test(text) || resolverTimer.test(text);
  };
  const polling = new Set<FunctionLike>();
  const visit = (node: ts.Node): void => {
    if (ts.isAwaitExpression(node) && isTimerAwait(node)) {
      const loop = ts.findAncestor(node, (n) => isFunctionLike(n) || ts.isIterationStatement(n, false));
      const fn = loop !== undefined && !isFunctionLike(loop) ? enclosingFunction(loop) : undefined;
      if (fn !== undefined && functionName(fn) !== undefined) polling.add(fn);
    }
    if (ts.isCallExpression(node) && isSetTimeout(node.expression)) {
      const [callback] = node.arguments;
      if (callback !== undefined && ts.isIdentifier(callback)) {
        const self = ts.findAncestor(node, (n) => isFunctionLike(n) && functionName(n) === callback.text) as
          | FunctionLike
          | undefined;
        if (self !== undefined) polling.add(self);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return [...polling]
    .map((fn) => {
      const line = source.getLineAndCharacterOfPosition(fn.getStart(source)).line;
      return { line: line + 1, text: (lines[line] ?? '').trim(), marked: markedAround(fn, source, lines) };
    })
    .sort((a, b) => a.line - b.line);
}

type FunctionLike = ts.FunctionDeclaration | ts.FunctionExpression | ts.ArrowFunction | ts.MethodDeclaration;

function isFunctionLike(node: ts.Node): node is FunctionLike {
  return (
    ts.isFunctionDeclaration(node) ||
    ts.isFunctionExpression(node) ||
    ts.isArrowFunction(node) ||
    ts.isMethodDeclaration(node)
  );
}

function enclosingFunction(node: ts.Node): FunctionLike | undefined {
  return ts.findAncestor(node.parent, isFunctionLike) as FunctionLike | undefined;
}

/** A function's own name, or that of the variable or property it is assigned to. */
function functionName(fn: ts.Node): string | undefined {
  if ((ts.isFunctionDeclaration(fn) || ts.isMethodDeclaration(fn)) && fn.name !== undefined) {
    return fn.name.getText();
  }
  const { parent } = fn;
  if ((ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)) && parent.initializer === fn) {
    return parent.name.getText();
  }
  if (ts.isFunctionExpression(fn) && fn.name !== undefined) return fn.name.text;
  return undefined;
}

function isSetTimeout(callee: ts.Expression): boolean {
  if (ts.isIdentifier(callee)) return callee.text === 'setTimeout';
  return ts.isPropertyAccessExpression(callee) && callee.name.text === 'setTimeout';
}

/** SLEEP_MARKER on the first line of `fn`, or of a function around it, or within three lines above. */
function markedAround(fn: FunctionLike, source: ts.SourceFile, lines: readonly string[]): boolean {
  for (let at: ts.Node | undefined = fn; at !== undefined; at = enclosingFunction(at)) {
    // A `const tick = () => …` starts at its statement, where the marker's three lines are counted from.
    const statement = ts.findAncestor(at, (n) => ts.isStatement(n) || ts.isClassElement(n)) ?? at;
    const line = source.getLineAndCharacterOfPosition(statement.getStart(source)).line;
    const context = lines.slice(Math.max(0, line - 3), line + 1).join('\n');
    if (context.includes(SLEEP_MARKER)) return true;
  }
  return false;
}

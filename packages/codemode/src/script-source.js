/** How a script's text becomes guest code: fence stripping, the two wrappers, and its file name. */

/** The file name guest stacks show for the script (line numbers in errors are read from it). */
export const SCRIPT_FILE = 'script.js';

const FUNCTION_FORM = /^\s*(?:async\s+)?(?:function\b|\([^)]*\)\s*=>|[A-Za-z_$][\w$]*\s*=>)/;
const SCRIPT_LINE = new RegExp(`${SCRIPT_FILE.replace('.', '\\.')}:(\\d+)`);

/**
 * The sources to try, in order: a script that is itself a function expression is called (if it
 * does not compile as one, it is taken as a body); anything else is an async function body.
 * Evaluating either wrapper only creates a closure: nothing of the script runs yet.
 * @param {string} code
 * @returns {string[]}
 */
export function scriptWrappers(code) {
  const source = stripFence(code);
  const body = `(async () => {${source}\n})`;
  if (!FUNCTION_FORM.test(source)) return [body];
  const called = `(async () => { const __fn = (${source}\n); return typeof __fn === 'function' ? await __fn() : __fn; })`;
  return [called, body];
}

/**
 * The script's line in a guest stack trace, if it names one.
 * @param {string} stack
 * @returns {string | undefined}
 */
export function scriptLine(stack) {
  return SCRIPT_LINE.exec(stack)?.[1];
}

/**
 * Strips a surrounding markdown fence while keeping line numbers.
 * @param {string} code
 */
function stripFence(code) {
  const fenced = /^\s*```[\w-]*[ \t]*(\n[\s\S]*?)\n?[ \t]*```\s*$/.exec(code);
  return fenced?.[1] ?? code;
}

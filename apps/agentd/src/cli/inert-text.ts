/**
 * Agent text made inert for display: what an agent prints is shown, never obeyed. On a terminal an
 * escape sequence could move the cursor, erase lines, set the window title (OSC 0), write the
 * clipboard (OSC 52) or forge a line of agentd's own; in a page (and on a terminal) a bidi control
 * reorders what is read. So every control character is shown visibly instead: C0 and DEL in caret
 * notation (`^[` for ESC, `^M` for CR, `^?` for DEL), C1 and bidi controls as `<U+XXXX>`. Tab and
 * newline are kept. Only SGR colours (`ESC [ … m`) may pass, and only when asked for.
 *
 * Shared by the CLI and the dashboard (ui/src), so both show the same text: no Node APIs here.
 */

/** Every character made visible: C0 but tab and newline, DEL, C1, and the bidi controls. */
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** A colour-only SGR sequence: ESC [ digits and semicolons m (nothing that moves or erases). */
const SGR = /\u001b\[[0-9;]{0,32}m/g;

export interface InertOptions {
  /** Let SGR colour sequences through (the CLI's `--color-agent-output`); all else stays visible. */
  colours?: boolean;
}

function visible(char: string): string {
  const code = char.charCodeAt(0);
  if (code < 0x20) return `^${String.fromCharCode(code + 0x40)}`;
  if (code === 0x7f) return '^?';
  return `<U+${code.toString(16).toUpperCase().padStart(4, '0')}>`;
}

const showAll = (text: string): string => text.replace(UNSAFE, visible);

/** `text` with every control character shown, not applied (see the module comment). */
export function inert(text: string, options: InertOptions = {}): string {
  if (options.colours !== true) return showAll(text);
  // Colour sequences pass whole; what lies between them is made inert as usual.
  let out = '';
  let from = 0;
  for (const match of text.matchAll(SGR)) {
    out += showAll(text.slice(from, match.index)) + match[0];
    from = match.index + match[0].length;
  }
  // A colour left on would paint agentd's own lines after it.
  return from === 0 ? showAll(text) : `${out}${showAll(text.slice(from))}\u001b[0m`;
}

/** What JSON.stringify leaves raw but a terminal or a reader may obey: C1, DEL, bidi, line separators. */
const JSON_UNSAFE = /[\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/g;

/** JSON text with those characters escaped (`\u009b`): the same JSON value, inert on a terminal. */
export function inertJson(json: string): string {
  return json.replace(JSON_UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

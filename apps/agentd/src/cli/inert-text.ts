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

export interface InertOptions {
  /** Let SGR colour sequences through (the CLI's `--color-agent-output`); all else stays visible. */
  colours?: boolean;
}

const ESC = 0x1b;

/** U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069: the characters that reorder text. */
const isBidi = (c: number): boolean =>
  c === 0x061c ||
  c === 0x200e ||
  c === 0x200f ||
  (c >= 0x202a && c <= 0x202e) ||
  (c >= 0x2066 && c <= 0x2069);

/** Shown, never applied: C0 but tab and newline, DEL, C1, and the bidi controls. */
const isUnsafe = (c: number): boolean =>
  (c < 0x20 && c !== 0x09 && c !== 0x0a) || (c >= 0x7f && c <= 0x9f) || isBidi(c);

function visible(code: number): string {
  if (code < 0x20) return `^${String.fromCharCode(code + 0x40)}`;
  if (code === 0x7f) return '^?';
  return `<U+${code.toString(16).toUpperCase().padStart(4, '0')}>`;
}

/** The end of a colour-only SGR sequence at `i` (ESC [ digits and semicolons m), else -1. */
function sgrEnd(text: string, i: number): number {
  if (text.charCodeAt(i) !== ESC || text[i + 1] !== '[') return -1;
  for (let j = i + 2; j < text.length && j <= i + 34; j++) {
    const c = text[j] as string;
    if (c === 'm') return j + 1;
    if (c !== ';' && (c < '0' || c > '9')) return -1;
  }
  return -1;
}

/** `text` with every control character shown, not applied (see the module comment). */
export function inert(text: string, options: InertOptions = {}): string {
  let out = '';
  let from = 0;
  let coloured = false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (!isUnsafe(code)) continue;
    out += text.slice(from, i);
    const end = options.colours === true ? sgrEnd(text, i) : -1;
    if (end === -1) {
      out += visible(code);
      from = i + 1;
    } else {
      out += text.slice(i, end);
      coloured = true;
      from = end;
      i = end - 1;
    }
  }
  out += text.slice(from);
  // A colour left on would paint agentd's own lines after it.
  return coloured ? `${out}\u001b[0m` : out;
}

/** What JSON.stringify leaves raw but a terminal or a reader may obey: C1, DEL, bidi, line separators. */
const JSON_UNSAFE = /[\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/g;

/** JSON text with those characters escaped (`\u009b`): the same JSON value, inert on a terminal. */
export function inertJson(json: string): string {
  return json.replace(JSON_UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

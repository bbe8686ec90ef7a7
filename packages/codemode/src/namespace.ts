/** The guest global that carries the API (`agentd.query(…)`), and which names it may take. */
import { LocalError } from '@agentd/rpc-frame';
import type { CodeModeErrorCode } from './local-errors.js';

// Neutral on purpose: an embedder names its own API (agentd passes 'agentd').
export const DEFAULT_NAMESPACE = 'api';

/** Globals of the guest that a namespace must not shadow. */
const TAKEN = new Set([
  'globalThis',
  'console',
  'JSON',
  'Math',
  'Object',
  'Array',
  'String',
  'Number',
  'Boolean',
  'Symbol',
  'Promise',
  'Error',
  'TypeError',
  'RangeError',
  'SyntaxError',
  'Reflect',
  'Proxy',
  'Map',
  'Set',
  'WeakMap',
  'WeakSet',
  'Date',
  'RegExp',
  'Function',
  'eval',
  'undefined',
  'NaN',
  'Infinity',
  'arguments',
  'await',
  'async',
  'yield',
  'let',
  'static',
  'this',
  'super',
  'new',
  'class',
  'function',
  'return',
  'var',
  'const',
  'if',
  'else',
  'for',
  'while',
  'do',
  'switch',
  'case',
  'default',
  'break',
  'continue',
  'throw',
  'try',
  'catch',
  'finally',
  'typeof',
  'instanceof',
  'in',
  'of',
  'delete',
  'void',
  'with',
  'null',
  'true',
  'false',
  'import',
  'export',
  'enum',
  'extends',
  'implements',
  'interface',
  'package',
  'private',
  'protected',
  'public',
  'debugger',
]);

/** Throws `invalid_namespace` unless `name` is a plain identifier free to use as a global. */
export function checkNamespace(name: string): string {
  if (typeof name !== 'string' || !/^[A-Za-z_$][\w$]{0,63}$/.test(name) || TAKEN.has(name)) {
    throw new LocalError<CodeModeErrorCode>(
      'invalid_namespace',
      `Invalid Code Mode namespace: ${String(name)}`,
    );
  }
  return name;
}

/**
 * Windows has no unix socket files for Node to listen on: `net` listens on named pipes there
 * (`\\.\pipe\NAME` or `\\?\pipe\NAME`). A pipe is no file: nothing to chmod, nothing stale to
 * clear, and the OS frees the name when the listener dies, so binding one is a plain listen.
 */
const NAMED_PIPE = /^\\\\[.?]\\pipe\\./i;

export function isNamedPipePath(path: string): boolean {
  return NAMED_PIPE.test(path);
}

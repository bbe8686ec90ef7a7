/**
 * While a process serves over stdio, stdout is the protocol stream: console.log/info/debug are sent
 * to stderr so a stray print cannot corrupt it. Returns the function that restores them.
 */
export function redirectConsoleToStderr(): () => void {
  const saved = { log: console.log, info: console.info, debug: console.debug };
  const toStderr = (...args: unknown[]): void => console.error(...args);
  console.log = toStderr;
  console.info = toStderr;
  console.debug = toStderr;
  return () => {
    console.log = saved.log;
    console.info = saved.info;
    console.debug = saved.debug;
  };
}

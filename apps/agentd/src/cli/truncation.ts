/**
 * A run answer that was cut to fit: by Code Mode's result limit (the `execute` tool's
 * `truncated`), or by the daemon's bounded run view (`truncated: true` on the status). The CLI
 * never shows a cut answer silently: it says so on stderr, names what shows the rest, and exits 4.
 */
import { isJsonObject } from '@agentd/rpc-frame';

/** Exit code of a command whose run succeeded but whose output was shown truncated. */
export const EXIT_TRUNCATED = 4;

/**
 * A run status Code Mode cut to its result limit is read again by handle, as a resource: that
 * answer is the daemon's bounded view of the run, not cut any further. Anything else is kept.
 */
export async function fullerRun(read: (uri: string) => Promise<unknown>, value: unknown): Promise<unknown> {
  if (!isJsonObject(value) || typeof value.handle !== 'string' || typeof value.runId !== 'string')
    return value;
  const again = await read(`agent://subagent/${value.handle}`).catch(() => undefined);
  if (isJsonObject(again) && again.runId === value.runId) return again;
  return { ...value, truncated: true };
}

/** Whether a run answer is marked truncated. */
export const isTruncated = (value: unknown): boolean => isJsonObject(value) && value.truncated === true;

/** The stderr notice for a truncated run answer: what was cut, and where the rest is said. */
export function truncationNotice(value: unknown): string {
  const status = isJsonObject(value) ? value : {};
  const size =
    typeof status.outputBytes === 'number' ? ` (the whole output is ${status.outputBytes} bytes)` : '';
  const run = typeof status.runId === 'string' ? status.runId : 'RUN';
  return (
    `agentd: the output shown is truncated${size}: an answer carries at most 1 MiB of a run's output, JSON-escaped.\n` +
    `agentd: \`agentd status ${run} --json\` shows the run with "truncated": true and "outputBytes"; exit code ${EXIT_TRUNCATED} says the output was cut\n`
  );
}

/** `agentd runs [--all …]`: the history flags, which only mean something with --all. */
import type { ClientAction } from './parse-args.js';
import { UsageError } from './parse-args.js';

const HISTORY_FLAGS = ['--agent', '--state', '--since', '--cursor'] as const;

export function historyRunsAction(
  all: boolean,
  value: (flag: string) => string | undefined,
): Extract<ClientAction, { kind: 'runs' }> {
  const action: Extract<ClientAction, { kind: 'runs' }> = { kind: 'runs' };
  for (const flag of HISTORY_FLAGS) {
    const given = value(flag);
    if (given === undefined) continue;
    if (!all) throw new UsageError(`${flag} lists the history: add --all`);
    action[flag.slice(2) as 'agent' | 'state' | 'since' | 'cursor'] = given;
  }
  const since = action.since;
  if (since !== undefined && !Number.isFinite(Date.parse(since)))
    throw new UsageError(`--since must be an ISO time (2026-01-31 or 2026-01-31T08:00:00Z), got '${since}'`);
  if (all) action.all = true;
  return action;
}

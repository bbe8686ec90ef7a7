/**
 * The run store as resources: `agent://runs` (the history, summaries newest first, paged) and
 * `agent://logs/{handle}` (a run's whole event log, a page at a time). A restricted peer lists
 * only the runs it started; a log is read by handle, which is a capability.
 */
import { type JsonObject, LocalError } from '@agentd/rpc-frame';
import type { Peer } from '@agentd/server';
import type { ListQuery } from '../history/history-types.js';
import { starterOf } from './run-access.js';
import type { RunIndex } from './run-index.js';
import { trustOf } from './trust.js';

/** Why a history resource cannot be answered: the caller maps it onto its not-found answer. */
export class HistoryUnavailable extends Error {}

function listQuery(params: URLSearchParams, peer: Peer): ListQuery {
  const query: ListQuery = {};
  const cursor = params.get('cursor');
  const agent = params.get('agent');
  const state = params.get('state');
  const since = params.get('since');
  const limit = params.get('limit');
  const text = params.get('text');
  if (text !== null) query.text = text;
  if (cursor !== null) query.cursor = cursor;
  if (agent !== null) query.agent = agent;
  if (state !== null) query.state = state;
  if (since !== null) {
    const at = new Date(since);
    if (!Number.isFinite(at.getTime())) throw new HistoryUnavailable(`since is not a date: ${since}`);
    query.since = at;
  }
  if (limit !== null) {
    if (!/^[0-9]+$/.test(limit)) throw new HistoryUnavailable(`limit is not a count: ${limit}`);
    query.limit = Number(limit);
  }
  if (trustOf(peer) !== 'management') query.owner = starterOf(peer).principal;
  return query;
}

export async function readRuns(runs: RunIndex, params: URLSearchParams, peer: Peer): Promise<JsonObject> {
  const history = runs.history ?? unavailable();
  try {
    const page = await history.list(listQuery(params, peer));
    const runsOut = page.runs.map(({ owner: _owner, ...run }) => run);
    return page.nextCursor === undefined ? { runs: runsOut } : { runs: runsOut, nextCursor: page.nextCursor };
  } catch (error) {
    if (error instanceof LocalError) throw new HistoryUnavailable(error.message);
    throw error;
  }
}

/** One page of a run's stored events; `state`/`terminal` tell a follower whether more may come. */
export async function readLogs(
  runs: RunIndex,
  handle: string,
  after: number,
): Promise<JsonObject | undefined> {
  const history = runs.history ?? unavailable();
  const status = await runs.find(handle);
  if (status === undefined) return undefined;
  const runId = String(status.runId);
  const page = await history.events(runId, { after });
  return {
    runId,
    state: status.state ?? null,
    terminal: status.terminal === true,
    events: page.events as unknown as JsonObject[],
    ...(page.next === undefined ? {} : { next: page.next }),
  };
}

function unavailable(): never {
  throw new HistoryUnavailable('this agentd keeps no run history (history.enabled is false)');
}

/** Readable text of a run's workspace (its status's `workspace` field) and of a prune's report. */
import { isJsonObject, type JsonObject } from '@agentd/rpc-frame';
import { inert } from './inert-text.js';

const str = (value: unknown): string => (value === undefined || value === null ? '' : String(value));
const list = (value: unknown): string[] => (Array.isArray(value) ? value.map(String) : []);

/** `3 files +10 -2`; empty when the counts are unknown (a copy without git to count). */
function diffText(ws: JsonObject): string {
  if (typeof ws.files !== 'number') return '';
  return `${ws.files} file${ws.files === 1 ? '' : 's'} +${str(ws.insertions)} -${str(ws.deletions)}`;
}

/** One line for a run's status, or undefined when it has no workspace of its own. */
export function workspaceLine(value: unknown): string | undefined {
  if (!isJsonObject(value)) return undefined;
  const branch = typeof value.branch === 'string' ? `branch ${value.branch}` : `copy of ${str(value.source)}`;
  if (value.state === 'live') return inert(`workspace: ${str(value.path)} (${branch})`);
  if (value.state === 'failed') {
    const error = isJsonObject(value.error) ? value.error : {};
    return inert(`workspace: ${str(value.path)} not summarised: ${str(error.message)} (${str(error.code)})`);
  }
  const commits =
    typeof value.base === 'string' && typeof value.head === 'string'
      ? ` ${value.base.slice(0, 8)}..${value.head.slice(0, 8)}`
      : '';
  const kept = value.state === 'kept' ? `kept at ${str(value.path)}` : 'removed';
  const diff = diffText(value);
  return inert(`workspace: ${branch}${commits}${diff === '' ? '' : `, ${diff}`}; ${kept}`);
}

/** `agentd workspace prune`'s report as people read it. */
export function pruneText(report: JsonObject, where: string): string {
  const removed = list(report.removed);
  const live = list(report.live);
  const kept = list(report.branchesKept);
  const deleted = list(report.branchesDeleted);
  const lines = [
    removed.length === 0
      ? `no workspace to prune (${where})`
      : `removed ${removed.length} workspace(s) (${where}): ${removed.join(', ')}`,
  ];
  if (kept.length > 0) lines.push(`branches kept (they hold the runs' work): ${kept.join(', ')}`);
  if (deleted.length > 0) lines.push(`branches deleted (nothing was done on them): ${deleted.join(', ')}`);
  if (live.length > 0) lines.push(`left alone, still live: ${live.join(', ')}`);
  return `${inert(lines.join('\n'))}\n`;
}

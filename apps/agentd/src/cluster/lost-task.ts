/**
 * The spawn task of a run marked lost: failed, with the reason, so `tasks/get` and `tasks/result`
 * say so on every replica instead of `working` until the task's TTL.
 */

import type { JsonObject } from '@agentd/rpc-frame';
import type { TaskChange } from '@agentd/tasks';
import type { SharedStatus } from './shared-run.js';

/** JSON-RPC internal error: the outcome is unknown, not the caller's fault. */
const LOST_TASK_CODE = -32603;

export function lostTaskChange(lost: SharedStatus): TaskChange {
  const message = `the run ${lost.handle} was lost: instance ${lost.instance} stopped renewing its lease before the run ended; its outcome is unknown`;
  const data: JsonObject = { handle: lost.handle, runId: lost.runId, instance: lost.instance, state: 'lost' };
  return { status: 'failed', statusMessage: message, error: { code: LOST_TASK_CODE, message, data } };
}

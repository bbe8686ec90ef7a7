/**
 * `subagent.approve`: an operator's (or the starter's) answer to a run's pending permission
 * request. Unlike the rest of a run's operations the handle alone does not authorize it: a
 * permission is the starter's to grant, so only the run's starter and management peers answer;
 * a restricted peer that did not start the run is told the run is not found, as for any run it
 * may not read (run-access.ts).
 */
import { type JsonObject, LocalError } from '@agentd/rpc-frame';
import type { Peer } from '@agentd/server';
import type { AgentdErrorCode } from '../local-errors.js';
import type { Supervisor } from '../supervisor/index.js';
import type { PermissionAnswer } from '../supervisor/permission-broker.js';
import type { OperationSpec } from './operation-spec.js';
import { readableByRunId } from './run-access.js';
import { localStatus, type RunIndex, unknownHandle } from './run-index.js';

export interface ApproveHost {
  supervisor(): Supervisor;
  runs(): RunIndex;
}

const ARGS: JsonObject = {
  type: 'object',
  additionalProperties: false,
  required: ['handle'],
  properties: {
    handle: { type: 'string', minLength: 1, description: 'Handle returned by subagent.spawn.' },
    requestId: {
      type: 'string',
      minLength: 1,
      description:
        'The pending request (status.pendingPermissions); may be left out when exactly one is pending.',
    },
    optionId: {
      type: 'string',
      minLength: 1,
      description: 'One of the options the agent offered (wins over decision).',
    },
    decision: { type: 'string', enum: ['allow', 'deny'], description: "Default 'allow'." },
    always: { type: 'boolean', description: "Take the agent's 'always' option when it offers one." },
  },
};

/** The run this peer may answer for, from this replica; refusals read as for a run it may not see. */
async function answerableRun(host: ApproveHost, peer: Peer, handle: string): Promise<JsonObject> {
  const local = localStatus(host.supervisor(), handle);
  if (local === undefined) {
    const remote = await host.runs().find(handle);
    if (remote === undefined || readableByRunId(peer, remote) === undefined) throw unknownHandle();
    throw new LocalError<AgentdErrorCode>(
      'remote_session',
      `this run lives on instance ${String(remote.instance)}; its permissions are answered on that replica`,
    );
  }
  // Holding the handle is not enough: restricted non-starters get the answer an unknown handle gets.
  if (readableByRunId(peer, local) === undefined) throw unknownHandle();
  return local;
}

/** The request to answer: the one named, else the only pending one. */
function requestIdOf(args: JsonObject, status: JsonObject): string {
  if (typeof args.requestId === 'string') return args.requestId;
  const pending = Array.isArray(status.pendingPermissions) ? status.pendingPermissions : [];
  const only = pending.length === 1 ? (pending[0] as JsonObject).requestId : undefined;
  if (typeof only === 'string') return only;
  throw new LocalError<AgentdErrorCode>(
    pending.length === 0 ? 'unknown_request' : 'invalid_request',
    pending.length === 0
      ? 'this run has no pending permission request'
      : `this run has ${pending.length} pending permission requests; name one with requestId`,
  );
}

function answerOf(args: JsonObject): PermissionAnswer {
  if (typeof args.optionId === 'string') return args.optionId;
  return { allow: args.decision !== 'deny', always: args.always === true };
}

export function approveOperation(host: ApproveHost): OperationSpec {
  return {
    kind: 'command',
    id: 'subagent.approve',
    description:
      "Answer a run's pending permission request (status.pendingPermissions): an option the agent offered, or allow/deny (once, or always). Only the run's starter and operators may answer; exactly one answer counts.",
    args: ARGS,
    outputType: 'PermissionAnswered',
    operator: false,
    handler: async (args, context) => {
      const handle = args.handle as string;
      const status = await answerableRun(host, context.peer, handle);
      const requestId = requestIdOf(args, status);
      const decision = host.supervisor().approve(handle, requestId, answerOf(args));
      return { requestId, decision } as unknown as JsonObject;
    },
  };
}

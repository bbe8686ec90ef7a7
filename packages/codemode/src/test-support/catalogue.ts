/** A small operation catalogue with a host bridge (visibility re-checked on every call). */
import type { CallContext, OperationCall } from '../execute-types.js';
import type { OperationDescriptor, OperationKind } from '../operation.js';

export const OPERATIONS: OperationDescriptor[] = [
  {
    kind: 'query',
    id: 'GetAllServers',
    description: 'List every server',
    args: { type: 'object', properties: {} },
    outputType: 'Server[]',
  },
  {
    kind: 'query',
    id: 'servers.get',
    description: 'One server by id',
    args: {
      type: 'object',
      properties: { id: { type: 'string', description: 'Server id' } },
      required: ['id'],
    },
    outputType: 'Server',
  },
  {
    kind: 'command',
    id: 'subagent.spawn',
    description: 'Start a subagent with an instruction',
    args: {
      type: 'object',
      properties: {
        instruction: { type: 'string' },
        agent: { type: 'string', description: 'Profile name' },
        async: { type: 'boolean' },
      },
      required: ['instruction'],
    },
    outputType: 'SubagentStatus',
  },
  {
    kind: 'report',
    id: 'ServerStats',
    description: 'Counts of servers by state',
    args: { type: 'object' },
    outputType: '{ up: number; down: number }',
  },
];

export interface CallRecord {
  kind: OperationKind;
  id: string;
  args: unknown;
  signal: AbortSignal;
}

/** The bridge a dispatcher would provide: hidden names read exactly like missing ones. */
export function catalogueBridge(options: { hidden?: Set<string> } = {}): {
  call: OperationCall;
  calls: CallRecord[];
} {
  const calls: CallRecord[] = [];
  const servers = [
    { id: 's1', name: 'alpha', up: true },
    { id: 's2', name: 'beta', up: false },
  ];
  const call: OperationCall = async (kind, id, args, context: CallContext) => {
    calls.push({ kind, id, args, signal: context.signal });
    const name = `${kind}_${id}`;
    const known = OPERATIONS.some((op) => op.kind === kind && op.id === id);
    if (!known || options.hidden?.has(name)) throw new Error(`Unknown operation: ${name}`);
    const input = (args ?? {}) as Record<string, unknown>;
    switch (name) {
      case 'query_GetAllServers':
        return { query_id: id, item_type: 'Server', count: servers.length, items: servers };
      case 'query_servers.get': {
        const server = servers.find((s) => s.id === input.id);
        if (server === undefined) throw new Error(`No server ${String(input.id)}`);
        return server;
      }
      case 'command_subagent.spawn':
        return { handle: 'h1', state: 'running', instruction: input.instruction };
      default:
        return { up: 1, down: 1 };
    }
  };
  return { call, calls };
}

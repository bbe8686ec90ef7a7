/** A 320-operation catalogue (40 entities × 8 operations) for size and speed comparisons. */
import type { JsonObject } from '@agentd/rpc-frame';
import type { OperationDescriptor, OperationKind } from '../operation.js';

const ENTITIES = [
  'server',
  'agent',
  'session',
  'run',
  'profile',
  'token',
  'volume',
  'snapshot',
  'network',
  'route',
  'certificate',
  'secret',
  'job',
  'schedule',
  'queue',
  'topic',
  'subscription',
  'webhook',
  'user',
  'team',
  'project',
  'repository',
  'branch',
  'build',
  'artifact',
  'release',
  'deployment',
  'environment',
  'metric',
  'alert',
  'incident',
  'runbook',
  'dashboard',
  'report',
  'invoice',
  'quota',
  'region',
  'zone',
  'image',
  'template',
];

const OPS: {
  op: string;
  kind: OperationKind;
  describe: (e: string) => string;
  output: (t: string) => string;
}[] = [
  { op: 'get', kind: 'query', describe: (e) => `Get one ${e} by id`, output: (t) => t },
  {
    op: 'list',
    kind: 'view',
    describe: (e) => `List ${e}s, newest first, optionally filtered`,
    output: (t) => `${t}[]`,
  },
  { op: 'create', kind: 'command', describe: (e) => `Create a ${e}`, output: (t) => t },
  { op: 'update', kind: 'command', describe: (e) => `Update fields of an existing ${e}`, output: (t) => t },
  {
    op: 'delete',
    kind: 'command',
    describe: (e) => `Delete a ${e} permanently`,
    output: () => '{ deleted: boolean }',
  },
  { op: 'count', kind: 'report', describe: (e) => `Count ${e}s matching a filter`, output: () => 'number' },
  { op: 'search', kind: 'query', describe: (e) => `Full-text search over ${e}s`, output: (t) => `${t}[]` },
  { op: 'watch', kind: 'view', describe: (e) => `Live view of ${e} changes`, output: (t) => `${t}[]` },
];

function argsFor(op: string, entity: string, index: number): JsonObject {
  const id = { type: 'string', description: `The ${entity} id` };
  const limit = { type: 'integer', minimum: 1, maximum: 500, description: 'Most items to return' };
  const state = {
    type: 'string',
    enum: ['active', 'paused', 'archived'],
    description: `Only ${entity}s in this state`,
  };
  const name = { type: 'string', description: `Display name of the ${entity}` };
  const labels = {
    type: 'object',
    additionalProperties: { type: 'string' },
    description: 'Key/value labels',
  };
  switch (op) {
    case 'get':
    case 'delete':
      return { type: 'object', properties: { id, force: { type: 'boolean' } }, required: ['id'] };
    case 'list':
    case 'watch':
      return { type: 'object', properties: { limit, state, cursor: { type: 'string' } } };
    case 'create':
      return {
        type: 'object',
        properties: { name, labels, state, ...(index % 2 ? { region: { type: 'string' } } : {}) },
        required: ['name'],
      };
    case 'update':
      return { type: 'object', properties: { id, name, labels, state }, required: ['id'] };
    case 'count':
      return { type: 'object', properties: { state, since: { type: 'string', format: 'date-time' } } };
    default:
      return {
        type: 'object',
        properties: { text: { type: 'string', description: 'Words to find' }, limit },
        required: ['text'],
      };
  }
}

export function syntheticCatalogue(): OperationDescriptor[] {
  const ops: OperationDescriptor[] = [];
  ENTITIES.forEach((entity, index) => {
    const type = entity[0]?.toUpperCase() + entity.slice(1);
    for (const spec of OPS) {
      ops.push({
        kind: spec.kind,
        id: `${entity}.${spec.op}`,
        description: spec.describe(entity),
        args: argsFor(spec.op, entity, index),
        outputType: spec.output(type),
      });
    }
  });
  return ops;
}

/** What a classic `tools/list` would carry: one tool per operation, named `{kind}_{id}`. */
export function classicListing(ops: readonly OperationDescriptor[]): { tools: JsonObject[] } {
  return {
    tools: ops.map((op) => ({
      name: `${op.kind}_${op.id}`,
      description: op.description,
      inputSchema: op.args,
    })),
  };
}

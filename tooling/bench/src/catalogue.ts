/** The benchmark workload: 40 entities × 8 operations = 320 tools over an in-memory store, shared by every server. */

type PropertyType = 'string' | 'integer' | 'boolean';

export interface PropertySpec {
  readonly name: string;
  readonly type: PropertyType;
  readonly description: string;
  readonly minimum?: number;
  readonly maximum?: number;
}

export interface ToolSpec {
  readonly name: string;
  readonly entity: string;
  readonly op: Operation;
  readonly description: string;
  readonly properties: readonly PropertySpec[];
  /** Exactly one property is required. */
  readonly required: string;
}

export type Operation = 'get' | 'list' | 'create' | 'update' | 'delete' | 'count' | 'search' | 'watch';

export const ENTITIES: readonly string[] = [
  'user',
  'team',
  'project',
  'task',
  'issue',
  'comment',
  'label',
  'milestone',
  'release',
  'deployment',
  'service',
  'host',
  'volume',
  'snapshot',
  'backup',
  'alert',
  'incident',
  'runbook',
  'secret',
  'certificate',
  'domain',
  'record',
  'bucket',
  'object',
  'queue',
  'topic',
  'job',
  'schedule',
  'pipeline',
  'build',
  'artifact',
  'package',
  'invoice',
  'customer',
  'order',
  'product',
  'coupon',
  'report',
  'dashboard',
  'webhook',
];

const str = (name: string, description: string): PropertySpec => ({ name, type: 'string', description });
const int = (name: string, description: string, minimum: number, maximum: number): PropertySpec => ({
  name,
  type: 'integer',
  description,
  minimum,
  maximum,
});
const bool = (name: string, description: string): PropertySpec => ({ name, type: 'boolean', description });

interface OperationShape {
  readonly description: (entity: string) => string;
  readonly properties: (entity: string) => readonly PropertySpec[];
  readonly required: string;
}

const OPERATIONS: Readonly<Record<Operation, OperationShape>> = {
  get: {
    description: (e) => `Fetches one ${e} by its id, with its name, status and priority.`,
    properties: (e) => [
      str('id', `The ${e} id, e.g. ${e}-7.`),
      str('fields', 'Comma-separated fields to return.'),
      bool('includeArchived', `Also find the ${e} when it is archived.`),
    ],
    required: 'id',
  },
  list: {
    description: (e) => `Lists ${e} ids in id order, one page at a time.`,
    properties: (e) => [
      int('limit', `Most ${e} ids to return.`, 1, 100),
      str('cursor', 'The id to continue after.'),
      bool('includeArchived', `Include archived ${e} records.`),
    ],
    required: 'limit',
  },
  create: {
    description: (e) => `Creates a ${e} with a name and returns the new record.`,
    properties: (e) => [
      str('name', `Display name of the new ${e}.`),
      str('status', 'Initial status: open or closed.'),
      int('priority', 'Priority from 1 (highest) to 5.', 1, 5),
    ],
    required: 'name',
  },
  update: {
    description: (e) => `Changes the name, status or priority of an existing ${e}.`,
    properties: (e) => [
      str('id', `The ${e} id to change.`),
      str('name', 'New display name.'),
      str('status', 'New status: open or closed.'),
      int('priority', 'New priority from 1 (highest) to 5.', 1, 5),
    ],
    required: 'id',
  },
  delete: {
    description: (e) => `Deletes a ${e} by id and tells whether it existed.`,
    properties: (e) => [str('id', `The ${e} id to delete.`), bool('force', 'Delete even when it is open.')],
    required: 'id',
  },
  count: {
    description: (e) => `Counts ${e} records that have the given status.`,
    properties: (e) => [
      str('status', `Status of the ${e} records to count: open or closed.`),
      bool('includeArchived', 'Count archived records too.'),
    ],
    required: 'status',
  },
  search: {
    description: (e) => `Finds ${e} records whose name contains the query, case-insensitively.`,
    properties: (e) => [
      str('query', `Text to look for in ${e} names.`),
      int('limit', 'Most results to return.', 1, 100),
      int('offset', 'Results to skip first.', 0, 1000),
      bool('exact', 'Match the whole name only.'),
    ],
    required: 'query',
  },
  watch: {
    description: (e) => `Starts watching a ${e} for changes and returns the watch settings.`,
    properties: (e) => [
      str('id', `The ${e} id to watch.`),
      int('intervalSeconds', 'Polling interval in seconds.', 1, 3600),
    ],
    required: 'id',
  },
};

const OPERATION_NAMES: readonly Operation[] = [
  'get',
  'list',
  'create',
  'update',
  'delete',
  'count',
  'search',
  'watch',
];

function buildCatalogue(): readonly ToolSpec[] {
  const tools: ToolSpec[] = [];
  for (const entity of ENTITIES) {
    for (const op of OPERATION_NAMES) {
      const shape = OPERATIONS[op];
      tools.push({
        name: `${entity}_${op}`,
        entity,
        op,
        description: shape.description(entity),
        properties: shape.properties(entity),
        required: shape.required,
      });
    }
  }
  return tools;
}

/** The 320 tools, in entity then operation order. */
export const CATALOGUE: readonly ToolSpec[] = buildCatalogue();

/** The tool's input as a plain JSON Schema object (what every server advertises, before its own boilerplate). */
export function inputSchemaOf(tool: ToolSpec): {
  type: 'object';
  properties: Record<string, Record<string, unknown>>;
  required: string[];
} {
  const properties: Record<string, Record<string, unknown>> = {};
  for (const p of tool.properties) {
    const schema: Record<string, unknown> = { type: p.type };
    if (p.minimum !== undefined) schema.minimum = p.minimum;
    if (p.maximum !== undefined) schema.maximum = p.maximum;
    schema.description = p.description;
    properties[p.name] = schema;
  }
  return { type: 'object', properties, required: [tool.required] };
}

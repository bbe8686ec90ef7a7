/** The in-memory map behind the catalogue: every server runs these handlers, the driver runs them as the reference. */
import { CATALOGUE, ENTITIES, type Operation, type ToolSpec } from './catalogue.js';

interface EntityRecord {
  id: string;
  name: string;
  status: string;
  priority: number;
  archived: boolean;
}

type Args = Record<string, unknown>;

const SEED_PER_ENTITY = 12;

function text(value: unknown): string {
  return JSON.stringify(value);
}

function capitalised(entity: string): string {
  return entity.charAt(0).toUpperCase() + entity.slice(1);
}

/** One store per server process; handlers return the JSON text that becomes the one text block of the result. */
export class CatalogueStore {
  readonly #tables = new Map<string, Map<string, EntityRecord>>();
  readonly #next = new Map<string, number>();
  readonly #byName = new Map<string, ToolSpec>();

  constructor() {
    for (const entity of ENTITIES) {
      const table = new Map<string, EntityRecord>();
      for (let i = 1; i <= SEED_PER_ENTITY; i++) {
        const id = `${entity}-${i}`;
        table.set(id, {
          id,
          name: `${capitalised(entity)} ${i}`,
          status: i % 3 === 0 ? 'closed' : 'open',
          priority: (i % 5) + 1,
          archived: i % 7 === 0,
        });
      }
      this.#tables.set(entity, table);
      this.#next.set(entity, SEED_PER_ENTITY + 1);
    }
    for (const tool of CATALOGUE) this.#byName.set(tool.name, tool);
  }

  has(name: string): boolean {
    return this.#byName.has(name);
  }

  /** Runs tool `name`; throws for an unknown tool (servers validate arguments before this). */
  call(name: string, args: Args): string {
    const tool = this.#byName.get(name);
    if (tool === undefined) throw new Error(`unknown tool ${name}`);
    const table = this.#tables.get(tool.entity) as Map<string, EntityRecord>;
    return this.#run(tool.op, tool.entity, table, args);
  }

  #run(op: Operation, entity: string, table: Map<string, EntityRecord>, args: Args): string {
    switch (op) {
      case 'get':
        return text(table.get(String(args.id)) ?? { error: 'not_found', id: String(args.id) });
      case 'list':
        return this.#list(table, args);
      case 'create':
        return this.#create(entity, table, args);
      case 'update':
        return this.#update(table, args);
      case 'delete':
        return text({ id: String(args.id), deleted: table.delete(String(args.id)) });
      case 'count':
        return text({ status: String(args.status), count: this.#count(table, args) });
      case 'search':
        return this.#search(table, args);
      case 'watch':
        return text({ watching: String(args.id), intervalSeconds: Number(args.intervalSeconds ?? 60) });
    }
  }

  #visible(table: Map<string, EntityRecord>, includeArchived: unknown): EntityRecord[] {
    const all = [...table.values()];
    return includeArchived === true ? all : all.filter((r) => !r.archived);
  }

  #list(table: Map<string, EntityRecord>, args: Args): string {
    const ids = this.#visible(table, args.includeArchived).map((r) => r.id);
    const after = typeof args.cursor === 'string' ? ids.indexOf(args.cursor) + 1 : 0;
    const page = ids.slice(after, after + Number(args.limit));
    return text({ ids: page, total: ids.length });
  }

  #create(entity: string, table: Map<string, EntityRecord>, args: Args): string {
    const n = this.#next.get(entity) ?? 1;
    this.#next.set(entity, n + 1);
    const created: EntityRecord = {
      id: `${entity}-${n}`,
      name: String(args.name),
      status: typeof args.status === 'string' ? args.status : 'open',
      priority: typeof args.priority === 'number' ? args.priority : 3,
      archived: false,
    };
    table.set(created.id, created);
    return text(created);
  }

  #update(table: Map<string, EntityRecord>, args: Args): string {
    const found = table.get(String(args.id));
    if (found === undefined) return text({ error: 'not_found', id: String(args.id) });
    if (typeof args.name === 'string') found.name = args.name;
    if (typeof args.status === 'string') found.status = args.status;
    if (typeof args.priority === 'number') found.priority = args.priority;
    return text(found);
  }

  #count(table: Map<string, EntityRecord>, args: Args): number {
    return this.#visible(table, args.includeArchived).filter((r) => r.status === args.status).length;
  }

  #search(table: Map<string, EntityRecord>, args: Args): string {
    const query = String(args.query).toLowerCase();
    const hits = [...table.values()].filter((r) =>
      args.exact === true ? r.name.toLowerCase() === query : r.name.toLowerCase().includes(query),
    );
    const offset = Number(args.offset ?? 0);
    const limit = Number(args.limit ?? 20);
    return text({ ids: hits.slice(offset, offset + limit).map((r) => r.id), total: hits.length });
  }
}

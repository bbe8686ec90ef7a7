/** The shared registries: tools, operations, resources, templates, prompts and completers, with precomputed sorted lists. */
import { isExtensionId } from '@agentd/lifecycle';
import type { JsonObject } from '@agentd/rpc-frame';
import type { CompiledFilters } from './client-filters.js';
import { ID_PATTERN, optional, requireFunction, requireText } from './definition-checks.js';
import type {
  Completer,
  ErasedOperationDefinition,
  ErasedToolDefinition,
  OperationDefinition,
  OperationIndexEntry,
  PromptDefinition,
  ResourceDefinition,
  ResourceTemplateDefinition,
  ToolHandler,
} from './definitions.js';
import { OPERATION_KINDS } from './definitions.js';
import { deepFreeze, frozenCopy, isJsonObject } from './json.js';
import { dispatchError } from './local-errors.js';
import { assertValidName } from './names.js';
import { requireCodeModeTools } from './optional-peers.js';
import { promptSchema } from './prompt-schema.js';
import type { SchemaValidation } from './schema-compiler.js';
import { checkedScopes } from './scopes.js';
import { SortedList } from './sorted-list.js';
import { type ResolvedTaskTool, resolveTaskTool } from './task-runtime.js';
import { resolveSchema, type SchemaParser, schemaParser, type ToolSchema } from './tool-schema.js';
import { UriTemplate } from './uri-template.js';

export type SurfaceKind = 'tools' | 'resources' | 'prompts';

export interface RegisteredTool {
  readonly name: string;
  /** The frozen `tools/list` entry. */
  readonly entry: JsonObject;
  /** Validates the arguments; for Standard Schemas also transforms them (may be async). */
  readonly parse: SchemaParser;
  readonly parseOutput: SchemaParser | undefined;
  readonly requiredClientCapabilities: JsonObject | undefined;
  /** OAuth scopes a caller's token needs to see and call it (scopes.ts). */
  readonly requiredScopes: readonly string[] | undefined;
  /** Listed and callable only for a client that declared this extension. */
  readonly onlyForExtension: string | undefined;
  /** Task support, when the tool has any. */
  readonly task: ResolvedTaskTool | undefined;
  readonly handler: ToolHandler;
  /** `search`/`execute`: hidden only by deny rules. */
  readonly meta: boolean;
  /** A `tools/list` entry written for what this peer can see (Code Mode's descriptions); default `entry`. */
  readonly entryFor?: ((filters: CompiledFilters) => JsonObject) | undefined;
}

export interface RegisteredOperation {
  readonly definition: Readonly<OperationDefinition>;
  readonly toolName: string;
  readonly tool: RegisteredTool;
  readonly index: OperationIndexEntry;
}

interface RegisteredTemplate {
  readonly definition: ResourceTemplateDefinition;
  readonly template: UriTemplate;
  readonly entry: JsonObject;
}

export interface RegisteredPrompt {
  readonly definition: PromptDefinition<ToolSchema | undefined>;
  readonly entry: JsonObject;
  /** `argsSchema` prompts: validates (and transforms) the arguments. */
  readonly parse: SchemaParser | undefined;
}

interface ListedResource {
  readonly entry: JsonObject;
  /** The operation tool name when this is a schema resource (visibility follows the operation). */
  readonly operation?: string;
}

export class Catalogue {
  readonly tools = new Map<string, RegisteredTool>();
  readonly operations = new Map<string, RegisteredOperation>();
  readonly resources = new Map<string, { definition: ResourceDefinition; entry: JsonObject }>();
  readonly templates = new Map<string, RegisteredTemplate>();
  readonly prompts = new Map<string, RegisteredPrompt>();
  readonly completers = new Map<string, Completer>();
  readonly metaTools = new Map<string, RegisteredTool>();

  #extensionTools = 0;
  #toolList: SortedList<RegisteredTool> | undefined;
  #resourceList: SortedList<ListedResource> | undefined;
  #templateList: SortedList<RegisteredTemplate> | undefined;
  #promptList: SortedList<RegisteredPrompt> | undefined;
  #operationList: RegisteredOperation[] | undefined;
  #scoped: boolean | undefined;

  constructor(
    readonly exposure: 'classic' | 'codemode',
    readonly schemaScheme: string | false,
    readonly onChange: (kinds: SurfaceKind[]) => void,
    readonly schemaValidation: SchemaValidation = 'auto',
  ) {}

  buildTool(definition: ErasedToolDefinition, meta = false): RegisteredTool {
    assertValidName('tool', definition.name);
    requireText(`tool ${definition.name}: description`, definition.description);
    requireFunction(`tool ${definition.name}: handler`, definition.handler);
    const what = `tool ${definition.name}: inputSchema`;
    const input = resolveSchema(definition.inputSchema ?? { type: 'object' }, what, 'input');
    if (input.json.type !== 'object')
      throw dispatchError('invalid_schema', `${what} must have type "object"`);
    const outWhat = `tool ${definition.name}: outputSchema`;
    const output =
      definition.outputSchema === undefined
        ? undefined
        : resolveSchema(definition.outputSchema, outWhat, 'output');
    const entry: JsonObject = { name: definition.name };
    optional(entry, 'title', definition.title);
    entry.description = definition.description;
    entry.inputSchema = input.json;
    optional(entry, 'outputSchema', output?.json);
    optional(entry, 'annotations', definition.annotations);
    optional(entry, 'icons', definition.icons);
    optional(entry, '_meta', definition.meta);
    const frozen = frozenCopy(entry);
    return {
      name: definition.name,
      entry: frozen,
      parse: schemaParser(input, frozen.inputSchema, what, this.schemaValidation),
      parseOutput: output && schemaParser(output, frozen.outputSchema, outWhat, this.schemaValidation),
      requiredClientCapabilities:
        definition.requiredClientCapabilities && frozenCopy(definition.requiredClientCapabilities),
      onlyForExtension: extensionOf(definition),
      task: resolveTaskTool(definition.task, definition.name),
      requiredScopes: checkedScopes(`tool ${definition.name}`, definition.requiredScopes),
      handler: definition.handler,
      meta,
    };
  }

  addTool(definition: ErasedToolDefinition): () => boolean {
    const tool = this.buildTool(definition);
    this.#assertFreeToolName(tool.name);
    this.tools.set(tool.name, tool);
    if (tool.onlyForExtension !== undefined) this.#extensionTools++;
    this.#changed(['tools']);
    return () => this.removeTool(tool.name);
  }

  removeTool(name: string): boolean {
    const tool = this.tools.get(name);
    if (tool === undefined) return false;
    this.tools.delete(name);
    if (tool.onlyForExtension !== undefined) this.#extensionTools--;
    this.#changed(['tools']);
    return true;
  }

  /** Whether some tool exists only for clients with an extension (tools/list must then filter per request). */
  hasExtensionTools(): boolean {
    return this.#extensionTools > 0;
  }

  setMetaTool(tool: RegisteredTool): void {
    this.metaTools.set(tool.name, tool);
    this.#changed(['tools']);
  }

  addOperation(definition: ErasedOperationDefinition): () => boolean {
    if (!OPERATION_KINDS.includes(definition.kind)) {
      throw dispatchError(
        'invalid_definition',
        `operation kind must be one of ${OPERATION_KINDS.join(', ')}`,
      );
    }
    if (typeof definition.id !== 'string' || !ID_PATTERN.test(definition.id)) {
      throw dispatchError(
        'invalid_name',
        `operation id ${JSON.stringify(definition.id)} is invalid: use A-Z a-z 0-9 _ . -`,
      );
    }
    const toolName = `${definition.kind}_${definition.id}`;
    const args = definition.args ?? { type: 'object' };
    const tool = this.buildTool({
      name: toolName,
      description: definition.description,
      inputSchema: args,
      annotations: definition.kind === 'command' ? {} : { readOnlyHint: true },
      ...(definition.task === undefined ? {} : { task: definition.task }),
      ...(definition.requiredScopes === undefined ? {} : { requiredScopes: definition.requiredScopes }),
      handler: definition.handler,
    });
    this.#assertFreeToolName(toolName);
    const frozenDefinition = deepFreeze({ ...definition, args: tool.entry.inputSchema as JsonObject });
    let index: OperationIndexEntry | undefined;
    const operation: RegisteredOperation = {
      definition: frozenDefinition,
      toolName,
      tool,
      // Rendered on first read: it needs Code Mode's schema renderer, an optional peer.
      get index() {
        index ??= deepFreeze(indexEntry(frozenDefinition));
        return index;
      },
    };
    this.operations.set(toolName, operation);
    this.#changed(this.schemaScheme === false ? ['tools'] : ['tools', 'resources']);
    return () => this.removeOperation(definition.kind, definition.id);
  }

  removeOperation(kind: string, id: string): boolean {
    if (!this.operations.delete(`${kind}_${id}`)) return false;
    this.#changed(this.schemaScheme === false ? ['tools'] : ['tools', 'resources']);
    return true;
  }

  addResource(definition: ResourceDefinition): () => boolean {
    const uri = requireText('resource uri', definition.uri);
    if (!/^[A-Za-z][A-Za-z0-9+.-]*:/.test(uri))
      throw dispatchError('invalid_definition', `resource uri ${uri} needs a scheme`);
    requireText(`resource ${uri}: name`, definition.name);
    requireFunction(`resource ${uri}: read`, definition.read);
    checkedScopes(`resource ${uri}`, definition.requiredScopes);
    if (this.resources.has(uri) || this.#isSchemaUri(uri)) {
      throw dispatchError('duplicate', `resource ${uri} is already registered`);
    }
    const entry: JsonObject = { uri, name: definition.name };
    optional(entry, 'title', definition.title);
    optional(entry, 'description', definition.description);
    optional(entry, 'mimeType', definition.mimeType);
    optional(entry, 'size', definition.size);
    optional(entry, 'annotations', definition.annotations);
    optional(entry, '_meta', definition.meta);
    this.resources.set(uri, { definition, entry: frozenCopy(entry) });
    this.#changed(['resources']);
    return () => this.removeResource(uri);
  }

  removeResource(uri: string): boolean {
    if (!this.resources.delete(uri)) return false;
    this.#changed(['resources']);
    return true;
  }

  addTemplate(definition: ResourceTemplateDefinition): () => boolean {
    const uriTemplate = requireText('resource template uriTemplate', definition.uriTemplate);
    requireText(`resource template ${uriTemplate}: name`, definition.name);
    requireFunction(`resource template ${uriTemplate}: read`, definition.read);
    checkedScopes(`resource template ${uriTemplate}`, definition.requiredScopes);
    if (this.templates.has(uriTemplate))
      throw dispatchError('duplicate', `template ${uriTemplate} is already registered`);
    const template = new UriTemplate(uriTemplate);
    for (const [variable, completer] of Object.entries(definition.complete ?? {})) {
      if (!template.variableNames.includes(variable)) {
        throw dispatchError(
          'invalid_definition',
          `template ${uriTemplate} has no variable ${variable} to complete`,
        );
      }
      requireFunction(`template ${uriTemplate}: completer for ${variable}`, completer);
    }
    const entry: JsonObject = { uriTemplate, name: definition.name };
    optional(entry, 'title', definition.title);
    optional(entry, 'description', definition.description);
    optional(entry, 'mimeType', definition.mimeType);
    optional(entry, 'annotations', definition.annotations);
    optional(entry, '_meta', definition.meta);
    this.templates.set(uriTemplate, { definition, template, entry: frozenCopy(entry) });
    this.#changed(['resources']);
    return () => this.removeTemplate(uriTemplate);
  }

  removeTemplate(uriTemplate: string): boolean {
    if (!this.templates.delete(uriTemplate)) return false;
    this.#changed(['resources']);
    return true;
  }

  addPrompt(definition: PromptDefinition<ToolSchema | undefined>): () => boolean {
    assertValidName('prompt', definition.name);
    requireText(`prompt ${definition.name}: description`, definition.description);
    requireFunction(`prompt ${definition.name}: get`, definition.get);
    checkedScopes(`prompt ${definition.name}`, definition.requiredScopes);
    if (this.prompts.has(definition.name))
      throw dispatchError('duplicate', `prompt ${definition.name} is already registered`);
    const entry: JsonObject = { name: definition.name };
    optional(entry, 'title', definition.title);
    entry.description = definition.description;
    if (definition.arguments) {
      const seen = new Set<string>();
      entry.arguments = definition.arguments.map((argument) => {
        requireText(`prompt ${definition.name}: argument name`, argument.name);
        if (seen.has(argument.name))
          throw dispatchError('duplicate', `prompt ${definition.name}: argument ${argument.name} twice`);
        seen.add(argument.name);
        if (argument.complete !== undefined)
          requireFunction(`prompt ${definition.name}: completer`, argument.complete);
        const out: JsonObject = { name: argument.name };
        optional(out, 'title', argument.title);
        optional(out, 'description', argument.description);
        optional(out, 'required', argument.required);
        return out;
      });
    }
    const schema =
      definition.argsSchema === undefined
        ? undefined
        : promptSchema(
            definition.name,
            definition.argsSchema,
            definition.arguments !== undefined,
            definition.complete,
            this.schemaValidation,
          );
    if (schema) entry.arguments = schema.arguments;
    optional(entry, 'icons', definition.icons);
    optional(entry, '_meta', definition.meta);
    this.prompts.set(definition.name, { definition, entry: frozenCopy(entry), parse: schema?.parse });
    this.#changed(['prompts']);
    return () => this.removePrompt(definition.name);
  }

  removePrompt(name: string): boolean {
    if (!this.prompts.delete(name)) return false;
    this.#changed(['prompts']);
    return true;
  }

  // ---- lookups -------------------------------------------------------------------------

  /** The tool a `tools/call` name refers to in this exposure mode (visibility is the caller's business). */
  findTool(name: string): RegisteredTool | undefined {
    const plain = this.tools.get(name);
    if (plain) return plain;
    if (this.exposure === 'classic') return this.operations.get(name)?.tool;
    return this.metaTools.get(name);
  }

  toolList(): SortedList<RegisteredTool> {
    this.#toolList ??= new SortedList(this.#listedTools().map((tool) => [tool.name, tool] as const));
    return this.#toolList;
  }

  /** Operations sorted by kind then id (the operation index order). */
  operationList(): readonly RegisteredOperation[] {
    this.#operationList ??= [...this.operations.values()].sort((a, b) =>
      a.definition.kind === b.definition.kind
        ? compare(a.definition.id, b.definition.id)
        : OPERATION_KINDS.indexOf(a.definition.kind) - OPERATION_KINDS.indexOf(b.definition.kind),
    );
    return this.#operationList;
  }

  resourceList(): SortedList<ListedResource> {
    if (!this.#resourceList) {
      const entries: [string, ListedResource][] = [...this.resources].map(([uri, r]) => [
        uri,
        { entry: r.entry },
      ]);
      if (this.schemaScheme !== false) {
        for (const op of this.operations.values()) {
          const uri = this.schemaUri(op);
          entries.push([uri, { entry: schemaResourceEntry(uri, op), operation: op.toolName }]);
        }
      }
      this.#resourceList = new SortedList(entries);
    }
    return this.#resourceList;
  }

  templateList(): SortedList<RegisteredTemplate> {
    this.#templateList ??= new SortedList([...this.templates].map(([key, t]) => [key, t] as const));
    return this.#templateList;
  }

  promptList(): SortedList<RegisteredPrompt> {
    this.#promptList ??= new SortedList([...this.prompts].map(([key, p]) => [key, p] as const));
    return this.#promptList;
  }

  schemaUri(op: RegisteredOperation): string {
    return `${this.schemaScheme}://schema/${op.definition.kind}/${op.definition.id}`;
  }

  /** The operation a schema URI names, if any. */
  operationForSchemaUri(uri: string): RegisteredOperation | undefined {
    if (this.schemaScheme === false) return undefined;
    const prefix = `${this.schemaScheme}://schema/`;
    if (!uri.startsWith(prefix)) return undefined;
    const [kind, id, ...rest] = uri.slice(prefix.length).split('/');
    if (rest.length > 0 || kind === undefined || id === undefined) return undefined;
    return this.operations.get(`${kind}_${id}`);
  }

  /** Whether any entry requires scopes (recomputed after a change): without, scope checks cost nothing. */
  hasScopedEntries(): boolean {
    this.#scoped ??=
      [...this.tools.values()].some((t) => t.requiredScopes !== undefined) ||
      [...this.operations.values()].some((o) => o.tool.requiredScopes !== undefined) ||
      [...this.resources.values(), ...this.templates.values(), ...this.prompts.values()].some(
        (r) => r.definition.requiredScopes !== undefined && r.definition.requiredScopes.length > 0,
      );
    return this.#scoped;
  }

  hasAnyTools(): boolean {
    return this.tools.size > 0 || this.operations.size > 0 || this.metaTools.size > 0;
  }

  #listedTools(): RegisteredTool[] {
    const tools = [...this.tools.values()];
    if (this.exposure === 'classic') for (const op of this.operations.values()) tools.push(op.tool);
    else tools.push(...this.metaTools.values());
    return tools;
  }

  #isSchemaUri(uri: string): boolean {
    return this.schemaScheme !== false && uri.startsWith(`${this.schemaScheme}://schema/`);
  }

  #assertFreeToolName(name: string): void {
    if (this.tools.has(name) || this.operations.has(name) || this.metaTools.has(name)) {
      throw dispatchError('duplicate', `tool ${name} is already registered`);
    }
  }

  #changed(kinds: SurfaceKind[]): void {
    this.#scoped = undefined;
    if (kinds.includes('tools')) {
      this.#toolList = undefined;
      this.#operationList = undefined;
    }
    if (kinds.includes('resources')) {
      this.#resourceList = undefined;
      this.#templateList = undefined;
    }
    if (kinds.includes('tools') && this.schemaScheme !== false) this.#resourceList = undefined;
    if (kinds.includes('prompts')) this.#promptList = undefined;
    this.onChange(kinds);
  }
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function schemaResourceEntry(uri: string, op: RegisteredOperation): JsonObject {
  return deepFreeze({
    uri,
    name: op.toolName,
    description: `JSON Schema of the arguments of ${op.definition.kind} ${op.definition.id}`,
    mimeType: 'application/json',
  });
}

function indexEntry(definition: OperationDefinition): OperationIndexEntry {
  const schema = definition.args ?? {};
  const properties = isJsonObject(schema.properties) ? schema.properties : {};
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  return {
    id: definition.id,
    kind: definition.kind,
    description: definition.description,
    args: Object.entries(properties).map(([name, child]) => {
      const arg: OperationIndexEntry['args'][number] = {
        name,
        // The same renderer Code Mode's search uses, so both views of an operation agree.
        tsType: requireCodeModeTools('the operation index').jsonSchemaToTs(child, {
          multiline: false,
          root: schema,
        }),
        optional: !required.has(name),
      };
      if (isJsonObject(child) && typeof child.description === 'string') arg.description = child.description;
      return arg;
    }),
    outputType: definition.outputType ?? 'unknown',
  };
}

function extensionOf(definition: ErasedToolDefinition): string | undefined {
  const id = definition.onlyForExtension;
  if (id === undefined || isExtensionId(id)) return id;
  throw dispatchError(
    'invalid_definition',
    `tool ${definition.name}: onlyForExtension ${JSON.stringify(id)} is not {vendor-prefix}/{name}`,
  );
}

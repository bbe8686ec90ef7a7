/** What embedders register: tools, operations, resources, resource templates, prompts and completers. */
import type { JsonObject } from '@agentd/rpc-frame';
import type { HandlerContext } from './handler-context.js';
import type { ToolTaskSupport } from './task-runtime.js';
import type { ToolResult } from './tool-result.js';
import type { InferArgs, InferOutputValue, ToolSchema } from './tool-schema.js';
import type { TemplateVariables } from './uri-template.js';

/** The erased handler type every registered tool is stored as. */
export type ToolHandler = (args: Record<string, unknown>, context: HandlerContext) => unknown;

/** A content block of a CallToolResult (`text`, `image`, `audio`, `resource_link`, `resource`). */
type ContentBlock = { type: string; [key: string]: unknown };

/**
 * An SDK-style CallToolResult. Returned from a handler (a plain object with a `content` array of
 * blocks and no keys but `content`, `structuredContent`, `isError`, `_meta`), it is sent as it is:
 * `isError: true` stays an error.
 */
interface CallToolResultShape {
  content: ContentBlock[];
  structuredContent?: unknown;
  isError?: boolean;
  _meta?: JsonObject;
}

/** What a handler may return: anything without an `outputSchema`, else the schema's type or a verbatim result. */
type ToolReturn<Out> = [Out] extends [undefined]
  ? unknown
  : InferOutputValue<Out> | ToolResult | CallToolResultShape;

export type TypedToolHandler<In, Out> = (
  args: InferArgs<In>,
  context: HandlerContext,
) => ToolReturn<Out> | Promise<ToolReturn<Out>>;

export interface ToolDefinition<
  In extends ToolSchema = JsonObject,
  Out extends ToolSchema | undefined = ToolSchema | undefined,
> {
  /** 1-64 characters of `A-Z a-z 0-9 _ . / -`. */
  name: string;
  title?: string;
  description: string;
  /**
   * The arguments: a JSON Schema (2020-12 unless `$schema` says draft-07) with `type: "object"`,
   * or a Standard JSON Schema (zod >= 4.2, ArkType >= 2.1.28, Valibot via `toStandardJsonSchema`).
   * Default `{type: "object"}`. The handler's `args` type is inferred from it.
   */
  inputSchema?: In;
  /**
   * When set, results must carry conforming `structuredContent` (a violation becomes an isError
   * result) and the handler's return type is inferred from it.
   */
  outputSchema?: Out;
  annotations?: JsonObject;
  icons?: JsonObject[];
  /** Sent as the tool's `_meta`. */
  meta?: JsonObject;
  /** Client capabilities the tool cannot work without, e.g. `{sampling: {}}` (checked before the handler runs). */
  requiredClientCapabilities?: JsonObject;
  /**
   * The tool exists only for clients that declared this extension (legacy: in `initialize`;
   * 2026-07-28: on the request): others neither list nor call it (an unknown tool to them).
   * MCP Apps' app-only tools use it, so a host without apps never hands them to its model.
   */
  onlyForExtension?: string;
  /**
   * Task support (2026-07-28 tasks extension, 2025-11-25 tasks): `optional` answers with a task
   * when the client can take one, `required` never runs as a normal call. See the README's Tasks.
   */
  task?: ToolTaskSupport;
  /**
   * OAuth scopes the caller's token must carry (`peer.auth.scopes`): without them it is hidden
   * from lists and search and refused as unknown (or, with the Dispatcher's `stepUp`, answered
   * insufficient scope). Which peers are scope-checked: the Dispatcher's `scopesOf`.
   */
  requiredScopes?: readonly string[];
  /**
   * Returns a string (text), an object or array (structuredContent + its JSON as text), a
   * `ToolResult` or a CallToolResult-shaped object (verbatim; `toolError(…)` builds an error one),
   * or undefined (no content). Throwing gives an `isError` result.
   */
  handler: TypedToolHandler<In, Out>;
}

/** A tool definition with its schema types erased: what the catalogue stores. */
export type ErasedToolDefinition = Omit<ToolDefinition, 'inputSchema' | 'outputSchema' | 'handler'> & {
  inputSchema?: ToolSchema;
  outputSchema?: ToolSchema | undefined;
  handler: ToolHandler;
};

/**
 * The operation kinds, in listing order. The same list as Code Mode's (`@agentd/codemode/tools`), held
 * here too because a server without Code Mode installs no codemode; a test keeps the two equal.
 */
export const OPERATION_KINDS = Object.freeze(['query', 'view', 'report', 'command'] as const);
export type OperationKind = (typeof OPERATION_KINDS)[number];

export interface OperationDefinition<In extends ToolSchema = JsonObject> {
  kind: OperationKind;
  /** `A-Z a-z 0-9 _ . -`; `{kind}_{id}` must be a valid tool name. */
  id: string;
  description: string;
  /** The arguments object: JSON Schema or a Standard JSON Schema, as a tool's `inputSchema`; default `{type: "object"}`. */
  args?: In;
  /** A TypeScript type string for the result, e.g. `Server[]`; default `unknown`. */
  outputType?: string;
  /** Task support of the operation's tool (classic exposure), as `ToolDefinition.task`. */
  task?: ToolTaskSupport;
  /** As `ToolDefinition.requiredScopes`, in both exposures (Code Mode's search and execute too). */
  requiredScopes?: readonly string[];
  handler: (args: InferArgs<In>, context: HandlerContext) => unknown;
}

/** An operation definition with its schema type erased. */
export type ErasedOperationDefinition = Omit<OperationDefinition, 'args' | 'handler'> & {
  args?: ToolSchema;
  handler: ToolHandler;
};

/** One entry of the operation index (`search` results and `Dispatcher.operationIndex`). */
export interface OperationIndexEntry {
  id: string;
  kind: OperationKind;
  description: string;
  args: { name: string; tsType: string; optional: boolean; description?: string }[];
  outputType: string;
}

interface ResourceContents {
  uri?: string;
  mimeType?: string;
  text?: string;
  /** base64 */
  blob?: string;
  _meta?: JsonObject;
}

/**
 * A string (text), bytes (blob), one or more contents, or `{contents}`. `undefined`/`null` means
 * not found (-32002 legacy / -32602 modern).
 */
export type ResourceReadValue =
  | string
  | Uint8Array
  | ResourceContents
  | ResourceContents[]
  | { contents: ResourceContents[] }
  | undefined
  | null;

export interface CacheHints {
  ttlMs?: number;
  cacheScope?: 'public' | 'private';
}

export interface ResourceDefinition {
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  size?: number;
  annotations?: JsonObject;
  meta?: JsonObject;
  /** Modern-era cache hints for reads of this resource (default: the dispatcher's read hints). */
  cache?: CacheHints;
  /** As `ToolDefinition.requiredScopes`: hidden from lists, reads answer not found. */
  requiredScopes?: readonly string[];
  read(uri: string, context: HandlerContext): ResourceReadValue | Promise<ResourceReadValue>;
}

type CompletionValue = string[] | { values: string[]; total?: number; hasMore?: boolean };

/** Suggests values for one argument; `context.arguments` holds the other arguments already chosen. */
export type Completer = (
  value: string,
  context: { arguments: Record<string, string> },
) => CompletionValue | Promise<CompletionValue>;

export interface ResourceTemplateDefinition {
  /** RFC 6570 template, e.g. `agent://run/{id}`. */
  uriTemplate: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  annotations?: JsonObject;
  meta?: JsonObject;
  cache?: CacheHints;
  /** As `ToolDefinition.requiredScopes`: hidden from lists, reads through it answer not found. */
  requiredScopes?: readonly string[];
  /** Completers per template variable. */
  complete?: Record<string, Completer>;
  read(
    uri: string,
    variables: TemplateVariables,
    context: HandlerContext,
  ): ResourceReadValue | Promise<ResourceReadValue>;
}

interface PromptArgument {
  name: string;
  title?: string;
  description?: string;
  required?: boolean;
  complete?: Completer;
}

interface PromptMessage {
  role: 'user' | 'assistant';
  content: JsonObject;
}

export type PromptGetValue = string | PromptMessage[] | { description?: string; messages: PromptMessage[] };

export interface PromptDefinition<In extends ToolSchema | undefined = undefined> {
  name: string;
  title?: string;
  description: string;
  arguments?: PromptArgument[];
  /**
   * Instead of `arguments`: an object schema (JSON Schema or Standard JSON Schema) of string
   * arguments. Its properties are published as the arguments (`description`, `required` from the
   * schema), the values are validated with it (a failure is -32602) and `get` receives its output.
   */
  argsSchema?: In;
  /** Completers per argument, for `argsSchema` prompts. */
  complete?: Record<string, Completer>;
  icons?: JsonObject[];
  meta?: JsonObject;
  /** As `ToolDefinition.requiredScopes`: hidden from prompts/list, `get` answers unknown prompt. */
  requiredScopes?: readonly string[];
  get(
    args: [In] extends [undefined] ? Record<string, string> : InferArgs<In>,
    context: HandlerContext,
  ): PromptGetValue | Promise<PromptGetValue>;
}

export type CompletionRef = { type: 'ref/prompt'; name: string } | { type: 'ref/resource'; uri: string };

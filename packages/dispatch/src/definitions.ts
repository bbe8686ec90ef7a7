/** What embedders register: tools, operations, resources, resource templates, prompts and completers. */
import type { JsonObject } from '@agentd/rpc-frame';
import type { HandlerContext } from './handler-context.js';
import type { ToolTaskSupport } from './task-runtime.js';
import type { TemplateVariables } from './uri-template.js';

export type ToolHandler = (args: Record<string, unknown>, context: HandlerContext) => unknown;

export interface ToolDefinition {
  /** 1-64 characters of `A-Z a-z 0-9 _ . / -`. */
  name: string;
  title?: string;
  description: string;
  /** JSON Schema (2020-12 unless `$schema` says draft-07) with `type: "object"`; default `{type: "object"}`. */
  inputSchema?: JsonObject;
  /** When set, results must carry conforming `structuredContent` (a violation becomes an isError result). */
  outputSchema?: JsonObject;
  annotations?: JsonObject;
  icons?: JsonObject[];
  /** Sent as the tool's `_meta`. */
  meta?: JsonObject;
  /** Client capabilities the tool cannot work without, e.g. `{sampling: {}}` (checked before the handler runs). */
  requiredClientCapabilities?: JsonObject;
  /**
   * Task support (2026-07-28 tasks extension, 2025-11-25 tasks): `optional` answers with a task
   * when the client can take one, `required` never runs as a normal call. See the README's Tasks.
   */
  task?: ToolTaskSupport;
  /**
   * Returns a string (text), an object or array (structuredContent + its JSON as text), a
   * `ToolResult` (verbatim), or undefined (no content). Throwing gives an `isError` result.
   */
  handler: ToolHandler;
}

export type OperationKind = 'query' | 'view' | 'report' | 'command';

export const OPERATION_KINDS: readonly OperationKind[] = ['query', 'view', 'report', 'command'];

export interface OperationDefinition {
  kind: OperationKind;
  /** `A-Z a-z 0-9 _ . -`; `{kind}_{id}` must be a valid tool name. */
  id: string;
  description: string;
  /** JSON Schema of the arguments object; default `{type: "object"}`. */
  args?: JsonObject;
  /** A TypeScript type string for the result, e.g. `Server[]`; default `unknown`. */
  outputType?: string;
  /** Task support of the operation's tool (classic exposure), as `ToolDefinition.task`. */
  task?: ToolTaskSupport;
  handler: ToolHandler;
}

/** One entry of the operation index (`search` results and `Dispatcher.operationIndex`). */
export interface OperationIndexEntry {
  id: string;
  kind: OperationKind;
  description: string;
  args: { name: string; tsType: string; optional: boolean; description?: string }[];
  outputType: string;
}

export interface ResourceContents {
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
  read(uri: string, context: HandlerContext): ResourceReadValue | Promise<ResourceReadValue>;
}

export type CompletionValue = string[] | { values: string[]; total?: number; hasMore?: boolean };

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
  /** Completers per template variable. */
  complete?: Record<string, Completer>;
  read(
    uri: string,
    variables: TemplateVariables,
    context: HandlerContext,
  ): ResourceReadValue | Promise<ResourceReadValue>;
}

export interface PromptArgument {
  name: string;
  title?: string;
  description?: string;
  required?: boolean;
  complete?: Completer;
}

export interface PromptMessage {
  role: 'user' | 'assistant';
  content: JsonObject;
}

export type PromptGetValue = string | PromptMessage[] | { description?: string; messages: PromptMessage[] };

export interface PromptDefinition {
  name: string;
  title?: string;
  description: string;
  arguments?: PromptArgument[];
  icons?: JsonObject[];
  meta?: JsonObject;
  get(args: Record<string, string>, context: HandlerContext): PromptGetValue | Promise<PromptGetValue>;
}

export type CompletionRef = { type: 'ref/prompt'; name: string } | { type: 'ref/resource'; uri: string };

/** Turns what a tool handler returned (or threw) into an MCP CallToolResult. */
import { type JsonObject, LocalError, WireError } from '@agentd/rpc-frame';
import type { Era } from '@agentd/server';
import { isJsonObject } from './json.js';
import { dispatchError } from './local-errors.js';
import { describeIssues } from './schema-compiler.js';
import type { ParseOutcome, SchemaParser } from './tool-schema.js';

/** Returned by a handler to send a CallToolResult verbatim (content blocks, isError, structuredContent). */
export class ToolResult {
  readonly result: JsonObject;
  constructor(result: {
    content: JsonObject[];
    structuredContent?: unknown;
    isError?: boolean;
    _meta?: JsonObject;
  }) {
    this.result = result as JsonObject;
  }
}

export function errorResult(text: string): JsonObject {
  return { content: [{ type: 'text', text }], isError: true };
}

/** Programming errors (and non-Error throws) are internal: the model sees a generic text, the log sees the details. */
export function isInternalError(error: unknown): boolean {
  return (
    !(error instanceof Error) ||
    error instanceof TypeError ||
    error instanceof ReferenceError ||
    error instanceof SyntaxError ||
    error instanceof EvalError ||
    error instanceof URIError ||
    (error instanceof LocalError && error.code === 'invalid_result')
  );
}

export const INTERNAL_TOOL_ERROR = 'Internal error while running the tool';

/** Builds an isError result: `return toolError('Not found')` (the SDK's `{content, isError: true}` also works). */
export function toolError(message: string | JsonObject[], structuredContent?: unknown): ToolResult {
  const content = typeof message === 'string' ? [{ type: 'text', text: message }] : message;
  return new ToolResult(
    structuredContent === undefined
      ? { content, isError: true }
      : { content, structuredContent, isError: true },
  );
}

const RESULT_KEYS = new Set(['content', 'structuredContent', 'isError', '_meta']);

/**
 * An SDK-style CallToolResult: a plain object with a `content` array of typed blocks and only
 * CallToolResult keys. Ported handlers return these; sending one as data would turn
 * `isError: true` into a success.
 */
function isCallToolResult(value: unknown): value is JsonObject {
  if (!isJsonObject(value) || !Array.isArray(value.content)) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  if (proto !== Object.prototype && proto !== null) return false;
  for (const key of Object.keys(value)) if (!RESULT_KEYS.has(key)) return false;
  if (value.isError !== undefined && typeof value.isError !== 'boolean') return false;
  return value.content.every((block) => isJsonObject(block) && typeof block.type === 'string');
}

/**
 * Maps a returned value to a result; throws (to be logged as internal) when it cannot be
 * serialised. Async only when a Standard Schema output validator is.
 */
export function toToolResult(
  value: unknown,
  era: Era,
  toolName: string,
  parseOutput: SchemaParser | undefined,
): JsonObject | Promise<JsonObject> {
  if (value instanceof ToolResult) return checkVerbatim(value.result, toolName, parseOutput);
  if (isCallToolResult(value)) return checkVerbatim({ ...value }, toolName, parseOutput);
  if (value instanceof WireError) throw value;
  let result: JsonObject;
  if (value === undefined || value === null) result = { content: [] };
  else if (typeof value === 'string') result = { content: [{ type: 'text', text: value }] };
  else if (typeof value === 'object') {
    const text = JSON.stringify(value);
    result = { content: [{ type: 'text', text }] };
    // Legacy structuredContent must be an object; 2026 allows any JSON value.
    if (isJsonObject(value) || era === 'modern') result.structuredContent = JSON.parse(text) as unknown;
  } else result = { content: [{ type: 'text', text: String(value) }] };
  if (parseOutput) return checkStructured(result, toolName, parseOutput, true);
  return result;
}

function checkVerbatim(
  result: JsonObject,
  toolName: string,
  parseOutput: SchemaParser | undefined,
): JsonObject | Promise<JsonObject> {
  if (!Array.isArray(result.content) || !result.content.every(isJsonObject)) {
    throw dispatchError('invalid_result', `tool ${toolName} returned a ToolResult without a content array`);
  }
  if (!parseOutput || result.isError === true) return result;
  return checkStructured(result, toolName, parseOutput, false);
}

/** Validates structuredContent; a transforming (Standard Schema) validator's output replaces it. */
function checkStructured(
  result: JsonObject,
  toolName: string,
  parseOutput: SchemaParser,
  ownText: boolean,
): JsonObject | Promise<JsonObject> {
  if (!('structuredContent' in result)) {
    return errorResult(`Tool ${toolName} has an outputSchema but returned no structured content`);
  }
  const finish = (outcome: ParseOutcome): JsonObject => {
    if (!outcome.ok) {
      const detail = describeIssues(outcome.issues)
        .replaceAll('argument `', 'field `')
        .replace(/\barguments(?=[ :])/g, 'output');
      return errorResult(`Tool ${toolName} returned output that does not match its outputSchema: ${detail}`);
    }
    if (outcome.value !== result.structuredContent) {
      const text = JSON.stringify(outcome.value);
      result.structuredContent = JSON.parse(text) as unknown;
      if (ownText) result.content = [{ type: 'text', text }];
    }
    return result;
  };
  const outcome = parseOutput(result.structuredContent);
  return outcome instanceof Promise ? outcome.then(finish) : finish(outcome);
}

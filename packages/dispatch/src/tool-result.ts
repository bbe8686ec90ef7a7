/** Turns what a tool handler returned (or threw) into an MCP CallToolResult. */
import { type JsonObject, WireError } from '@agentd/rpc-frame';
import type { Era } from '@agentd/server';
import { isJsonObject } from './json.js';
import { describeIssues, type SchemaValidator } from './schema-compiler.js';

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
    error instanceof URIError
  );
}

export const INTERNAL_TOOL_ERROR = 'Internal error while running the tool';

/** Maps a returned value to a result; throws (to be logged as internal) when it cannot be serialised. */
export function toToolResult(
  value: unknown,
  era: Era,
  toolName: string,
  validateOutput: SchemaValidator | undefined,
): JsonObject {
  if (value instanceof ToolResult) return checkVerbatim(value.result, toolName, validateOutput);
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
  if (validateOutput) return checkStructured(result, toolName, validateOutput);
  return result;
}

function checkVerbatim(
  result: JsonObject,
  toolName: string,
  validateOutput: SchemaValidator | undefined,
): JsonObject {
  if (!Array.isArray(result.content) || !result.content.every(isJsonObject)) {
    throw new TypeError(`tool ${toolName} returned a ToolResult without a content array`);
  }
  if (!validateOutput || result.isError === true) return result;
  return checkStructured(result, toolName, validateOutput);
}

function checkStructured(result: JsonObject, toolName: string, validateOutput: SchemaValidator): JsonObject {
  if (!('structuredContent' in result)) {
    return errorResult(`Tool ${toolName} has an outputSchema but returned no structured content`);
  }
  const issues = validateOutput(result.structuredContent);
  if (!issues) return result;
  const detail = describeIssues(issues)
    .replaceAll('argument `', 'field `')
    .replaceAll('arguments ', 'output ');
  return errorResult(`Tool ${toolName} returned output that does not match its outputSchema: ${detail}`);
}

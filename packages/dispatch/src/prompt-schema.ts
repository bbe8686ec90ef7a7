/** Prompts declared with an `argsSchema`: the published argument list and the validator, from one schema. */
import type { JsonObject } from '@agentd/rpc-frame';
import type { Completer } from './definitions.js';
import { isJsonObject } from './json.js';
import { dispatchError } from './local-errors.js';
import type { SchemaValidation } from './schema-compiler.js';
import { resolveSchema, type SchemaParser, schemaParser } from './tool-schema.js';

interface PromptSchema {
  /** The `arguments` of the `prompts/list` entry. */
  readonly arguments: JsonObject[];
  readonly parse: SchemaParser;
}

export function promptSchema(
  prompt: string,
  schema: unknown,
  hasArguments: boolean,
  completers: Record<string, Completer> | undefined,
  validation: SchemaValidation,
): PromptSchema {
  const what = `prompt ${prompt}: argsSchema`;
  if (hasArguments)
    throw dispatchError('invalid_definition', `${what}: give either arguments or argsSchema, not both`);
  const resolved = resolveSchema(schema, what, 'input');
  const { json } = resolved;
  if (json.type !== 'object') throw dispatchError('invalid_schema', `${what} must have type "object"`);
  const properties = isJsonObject(json.properties) ? json.properties : {};
  const required = new Set(Array.isArray(json.required) ? json.required : []);
  const args = Object.entries(properties).map(([name, property]) => {
    const out: JsonObject = { name };
    if (isJsonObject(property) && typeof property.title === 'string') out.title = property.title;
    if (isJsonObject(property) && typeof property.description === 'string')
      out.description = property.description;
    if (required.has(name)) out.required = true;
    return out;
  });
  for (const [name, completer] of Object.entries(completers ?? {})) {
    if (!Object.hasOwn(properties, name))
      throw dispatchError('invalid_definition', `${what} has no argument ${name} to complete`);
    if (typeof completer !== 'function')
      throw dispatchError('invalid_definition', `prompt ${prompt}: completer for ${name} must be a function`);
  }
  return {
    arguments: args,
    parse: schemaParser(resolved, JSON.parse(JSON.stringify(json)), what, validation),
  };
}

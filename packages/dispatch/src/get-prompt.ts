/** prompts/get: argument checks, the prompt's handler under MRTR, message shaping. */
import { refuse } from '@agentd/lifecycle';
import { type JsonObject, WireError } from '@agentd/rpc-frame';
import type { RequestContext } from '@agentd/server';
import type { RegisteredPrompt } from './catalogue.js';
import { runClientInputRound } from './client-input-round.js';
import type { PromptGetValue } from './definitions.js';
import { type DispatchEnv, finishResult } from './dispatch-env.js';
import { isJsonObject } from './json.js';
import { dispatchError } from './local-errors.js';
import { describeIssues } from './schema-compiler.js';
import type { SchemaParser } from './tool-schema.js';

export function visiblePrompt(
  env: DispatchEnv,
  context: RequestContext,
  name: string,
): RegisteredPrompt | undefined {
  const prompt = env.catalogue.prompts.get(name);
  return prompt && env.filters(context.peer).promptVisible(name) ? prompt : undefined;
}

export async function getPrompt(
  env: DispatchEnv,
  params: JsonObject,
  context: RequestContext,
): Promise<JsonObject> {
  const { name } = params;
  if (typeof name !== 'string' || name === '') throw refuse.invalidParams('name must be a non-empty string');
  const prompt = visiblePrompt(env, context, name);
  if (!prompt) throw refuse.unknownPrompt(name);
  const args = readArguments(params.arguments, prompt);
  const input = prompt.parse ? await parsePromptArguments(prompt.parse, args) : args;
  const target = { method: 'prompts/get', name, arguments: args } as const;
  const outcome = await runClientInputRound(context, params, target, env.codec, async (ctx) =>
    toPromptResult(await prompt.definition.get(input as Record<string, string>, ctx), name),
  ).catch((error: unknown) => {
    if (error instanceof WireError) throw error;
    env.logger.error('prompt failed', {
      prompt: name,
      error: error instanceof Error ? error.stack : String(error),
    });
    throw refuse.internalError();
  });
  if (outcome.kind === 'input_required') return finishResult(context, outcome.result);
  if (outcome.kind === 'missing_capability')
    throw refuse.capabilityNotDeclared(outcome.error.requiredCapabilities);
  return finishResult(context, outcome.value);
}

function readArguments(raw: unknown, prompt: RegisteredPrompt): Record<string, string> {
  if (raw !== undefined && !isJsonObject(raw)) throw refuse.invalidParams('arguments must be an object');
  const args: Record<string, string> = {};
  for (const [key, value] of Object.entries(raw ?? {})) {
    if (typeof value !== 'string') throw refuse.invalidParams(`argument ${key} must be a string`);
    args[key] = value;
  }
  for (const argument of prompt.definition.arguments ?? []) {
    if (argument.required && args[argument.name] === undefined) {
      throw refuse.missingArgument(argument.name);
    }
  }
  return args;
}

async function parsePromptArguments(parse: SchemaParser, args: Record<string, string>): Promise<unknown> {
  const outcome = await parse(args);
  if (!outcome.ok) throw refuse.invalidArguments(describeIssues(outcome.issues));
  return outcome.value;
}

function toPromptResult(value: PromptGetValue, name: string): JsonObject {
  if (typeof value === 'string')
    return { messages: [{ role: 'user', content: { type: 'text', text: value } }] };
  const { description, messages } = Array.isArray(value)
    ? { description: undefined, messages: value }
    : value;
  if (!Array.isArray(messages) || !messages.every((m) => isJsonObject(m) && isJsonObject(m.content))) {
    throw dispatchError('invalid_result', `prompt ${name} returned messages without content`);
  }
  return description === undefined ? { messages } : { description, messages };
}

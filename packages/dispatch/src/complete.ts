/** completion/complete for prompt arguments and resource-template variables. */
import { refuse } from '@agentd/lifecycle';
import type { JsonObject } from '@agentd/rpc-frame';
import type { RequestContext } from '@agentd/server';
import type { Completer } from './definitions.js';
import { type DispatchEnv, finishResult } from './dispatch-env.js';
import { visiblePrompt } from './get-prompt.js';
import { isJsonObject } from './json.js';

const MAX_VALUES = 100;

export function completerKey(refType: string, refName: string, argument: string): string {
  return `${refType}\u0000${refName}\u0000${argument}`;
}

export async function complete(
  env: DispatchEnv,
  params: JsonObject,
  context: RequestContext,
): Promise<JsonObject> {
  const { ref, argument } = params;
  if (
    !isJsonObject(ref) ||
    !isJsonObject(argument) ||
    typeof argument.name !== 'string' ||
    typeof argument.value !== 'string'
  ) {
    throw refuse.invalidParams('expected ref and argument {name, value}');
  }
  const given =
    isJsonObject(params.context) && isJsonObject(params.context.arguments) ? params.context.arguments : {};
  const otherArguments: Record<string, string> = {};
  for (const [key, value] of Object.entries(given))
    if (typeof value === 'string') otherArguments[key] = value;
  const completer = findCompleter(env, context, ref, argument.name);
  let values: string[] = [];
  let total: number | undefined;
  let hasMore = false;
  if (completer) {
    try {
      const answer = await completer(argument.value, { arguments: otherArguments });
      const list = Array.isArray(answer) ? answer : answer.values;
      values = list.filter((v): v is string => typeof v === 'string');
      if (!Array.isArray(answer)) {
        total = answer.total;
        hasMore = answer.hasMore === true;
      }
    } catch (error) {
      env.logger.error('completer failed', {
        argument: argument.name,
        error: error instanceof Error ? error.stack : String(error),
      });
      throw refuse.internalError();
    }
  }
  if (values.length > MAX_VALUES) {
    total ??= values.length;
    values = values.slice(0, MAX_VALUES);
    hasMore = true;
  }
  const completion: JsonObject = { values };
  if (total !== undefined) completion.total = total;
  if (hasMore) completion.hasMore = true;
  return finishResult(context, { completion });
}

function findCompleter(
  env: DispatchEnv,
  context: RequestContext,
  ref: JsonObject,
  argument: string,
): Completer | undefined {
  const { catalogue } = env;
  if (ref.type === 'ref/prompt' && typeof ref.name === 'string') {
    const prompt = visiblePrompt(env, context, ref.name);
    if (!prompt) throw refuse.unknownPrompt(ref.name);
    const registered = catalogue.completers.get(completerKey('ref/prompt', ref.name, argument));
    return (
      registered ??
      prompt.definition.arguments?.find((a) => a.name === argument)?.complete ??
      (Object.hasOwn(prompt.definition.complete ?? {}, argument)
        ? prompt.definition.complete?.[argument]
        : undefined)
    );
  }
  if (ref.type === 'ref/resource' && typeof ref.uri === 'string') {
    const template = catalogue.templates.get(ref.uri);
    if (!template || !env.filters(context.peer).resourceVisible(ref.uri)) {
      throw refuse.unknownResourceTemplate(ref.uri);
    }
    const registered = catalogue.completers.get(completerKey('ref/resource', ref.uri, argument));
    return registered ?? template.definition.complete?.[argument];
  }
  throw refuse.invalidParams('ref must be ref/prompt {name} or ref/resource {uri}');
}

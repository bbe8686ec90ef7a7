/** Runs a handler under MRTR rules: legacy asks the client in place, modern ends the round with `input_required`. */
import { refuse } from '@agentd/lifecycle';
import type { JsonObject } from '@agentd/rpc-frame';
import type { RequestContext } from '@agentd/server';
import {
  isClientInputMethod,
  MissingClientCapabilityError,
  mergeCapabilities,
  missingCapability,
} from './client-capability.js';
import { type CallControl, createHandlerContext, type HandlerContext } from './handler-context.js';
import { InputRequired } from './input-required.js';
import type { InputRequest, InputSession } from './input-session.js';
import { traceInputRequests } from './input-telemetry.js';
import { isJsonObject } from './json.js';
import { dispatchError } from './local-errors.js';
import { digestOf, type RequestStateCodec, type StateBinding } from './request-state.js';

/** Symbol-keyed side channel (never serialised): the raw `InputRequired.requests` behind an input_required result. */
export const RAW_INPUT_REQUESTS: unique symbol = Symbol('agentd.rawInputRequests');

type RoundOutcome<T> =
  | { kind: 'complete'; value: T }
  | { kind: 'input_required'; result: JsonObject }
  /** Legacy only: the handler needs a capability the client lacks (modern throws -32021). */
  | { kind: 'missing_capability'; error: MissingClientCapabilityError };

export interface RoundTarget {
  method: 'tools/call' | 'prompts/get' | 'resources/read';
  name: string;
  arguments: unknown;
}

const MAX_LEGACY_ROUNDS = 8;
/** The answers of a first round without any: shared, read only. */
const NO_RESPONSES: JsonObject = Object.freeze({});

interface RoundCall<T> {
  readonly request: RequestContext;
  readonly params: JsonObject;
  readonly target: RoundTarget;
  readonly codec: RequestStateCodec;
  readonly invoke: (context: HandlerContext) => Promise<T>;
  readonly signal: AbortSignal | undefined;
  /** The argument digest costs a hash: computed only when a state is opened or sealed, then kept. */
  binding?: StateBinding;
}

function bindingFor(call: RoundCall<unknown>): StateBinding {
  call.binding ??= bindingOf(call.request, call.target);
  return call.binding;
}

/**
 * The first round runs without an async frame of its own: almost every call completes in it, so
 * the loop (and its state binding) is only entered when the handler asked the client for input.
 */
export function runClientInputRound<T>(
  request: RequestContext,
  params: JsonObject,
  target: RoundTarget,
  codec: RequestStateCodec,
  invoke: (context: HandlerContext) => Promise<T>,
  signal?: AbortSignal,
): Promise<RoundOutcome<T>> {
  const call: RoundCall<T> = { request, params, target, codec, invoke, signal };
  let responses: JsonObject;
  try {
    responses = request.era === 'modern' ? initialResponses(call) : NO_RESPONSES;
  } catch (error) {
    return Promise.reject(error);
  }
  const control = createHandlerContext(request, responses, signal);
  let running: Promise<T>;
  try {
    running = invoke(control.context);
  } catch (error) {
    control.finish();
    return laterRounds(call, control, false, undefined, error);
  }
  return running.then(
    (value) => {
      control.finish();
      const session = control.openedSession;
      if (session === undefined || session.pending.size === 0) return { kind: 'complete', value };
      return laterRounds(call, control, true, value, undefined);
    },
    (error: unknown) => {
      control.finish();
      return laterRounds(call, control, false, undefined, error);
    },
  );
}

/** A round that did not simply complete: refuse, end with `input_required`, or (legacy) ask and run again. */
async function laterRounds<T>(
  call: RoundCall<T>,
  first: CallControl,
  firstOk: boolean,
  firstValue: T | undefined,
  firstThrown: unknown,
): Promise<RoundOutcome<T>> {
  const { request, codec } = call;
  const binding = (): StateBinding => bindingFor(call);
  let control = first;
  let ok = firstOk;
  let value = firstValue;
  let thrown = firstThrown;
  for (let round = 0; ; round++) {
    const session = control.openedSession;
    if (ok && (session === undefined || session.pending.size === 0)) {
      return { kind: 'complete', value: value as T };
    }
    if (thrown instanceof MissingClientCapabilityError) return missing(request, thrown.requiredCapabilities);
    const raw = thrown instanceof InputRequired ? thrown : undefined;
    if (raw === undefined && (session === undefined || session.pending.size === 0)) throw thrown;
    const asked = control.inputSession();
    const keyed = raw === undefined ? {} : keyedRequests(raw.requests);
    if (keyed) {
      const lacking = lackingCapabilities(keyed, request.clientCapabilities);
      if (lacking) return missing(request, lacking);
      for (const [key, value] of Object.entries(keyed)) asked.pending.set(key, value);
    }
    if (request.era === 'modern') {
      traceInputRequests(asked.pending);
      return { kind: 'input_required', result: inputRequiredResult(asked, keyed, raw, binding, codec) };
    }
    if (!keyed || round + 1 >= MAX_LEGACY_ROUNDS || !request.sendRequest) {
      throw dispatchError(
        'client_input_unavailable',
        'this request needs client input that this connection cannot provide',
      );
    }
    const responses = { ...asked.responses, ...(await askAll(request, asked.pending)) };
    control = createHandlerContext(request, responses, call.signal);
    // Inline try/catch (no settle wrapper object).
    ok = true;
    thrown = undefined;
    try {
      value = await call.invoke(control.context);
    } catch (error) {
      ok = false;
      thrown = error;
    } finally {
      control.finish();
    }
  }
}

function bindingOf(request: RequestContext, target: RoundTarget): StateBinding {
  const principal = request.peer.attributes.principal;
  return {
    method: target.method,
    name: target.name,
    argumentsDigest: digestOf(target.arguments),
    principal: `${request.peer.origin}:${typeof principal === 'string' ? principal : ''}`,
  };
}

function initialResponses(call: RoundCall<unknown>): JsonObject {
  const { params } = call;
  const current = params.inputResponses;
  if (current !== undefined && !isJsonObject(current)) {
    throw refuse.invalidParams('inputResponses must be an object');
  }
  if (params.requestState === undefined) return current === undefined ? NO_RESPONSES : { ...current };
  const opened = call.codec.open(params.requestState, bindingFor(call));
  const responses: JsonObject = { ...opened.responses };
  for (const [key, value] of Object.entries(current ?? {})) {
    // Extra keys are ignored: only answers to what the server asked last round count.
    if (opened.outstanding === '*' || opened.outstanding.includes(key)) responses[key] = value;
  }
  return responses;
}

/** `{key: {method, params}}` with known methods, else undefined (an opaque `requests` value of the stateless tool-server contract). */
function keyedRequests(requests: unknown): Record<string, InputRequest> | undefined {
  if (!isJsonObject(requests)) return undefined;
  const out: Record<string, InputRequest> = {};
  for (const [key, value] of Object.entries(requests)) {
    if (!isJsonObject(value) || !isClientInputMethod(value.method)) return undefined;
    if (value.params !== undefined && !isJsonObject(value.params)) return undefined;
    out[key] = { method: value.method, params: value.params ?? {} };
  }
  return out;
}

function lackingCapabilities(
  requests: Record<string, InputRequest>,
  declared: JsonObject,
): JsonObject | undefined {
  let lacking: JsonObject | undefined;
  for (const { method, params } of Object.values(requests)) {
    const more = missingCapability(method, params, declared);
    if (more) lacking = mergeCapabilities(lacking ?? {}, more);
  }
  return lacking;
}

function missing(request: RequestContext, requiredCapabilities: JsonObject): RoundOutcome<never> {
  if (request.era === 'modern') {
    throw refuse.missingClientCapability(requiredCapabilities);
  }
  return { kind: 'missing_capability', error: new MissingClientCapabilityError(requiredCapabilities) };
}

function inputRequiredResult(
  session: InputSession,
  keyed: Record<string, InputRequest> | undefined,
  raw: InputRequired | undefined,
  binding: () => StateBinding,
  codec: RequestStateCodec,
): JsonObject {
  const outstanding = keyed ? [...session.pending.keys()] : '*';
  const result: JsonObject = { resultType: 'input_required' };
  if (session.pending.size > 0) result.inputRequests = Object.fromEntries(session.pending);
  result.requestState = codec.seal(binding(), { responses: session.responses, outstanding });
  if (raw) Object.defineProperty(result, RAW_INPUT_REQUESTS, { value: raw.requests, enumerable: false });
  return result;
}

async function askAll(request: RequestContext, pending: Map<string, InputRequest>): Promise<JsonObject> {
  const send = request.sendRequest as NonNullable<RequestContext['sendRequest']>;
  const entries = await Promise.all(
    [...pending].map(async ([key, { method, params }]) => {
      try {
        return [key, await send(method, params)] as const;
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        throw dispatchError('client_input_unavailable', `the client did not answer ${method}: ${message}`, {
          cause: error,
        });
      }
    }),
  );
  return Object.fromEntries(entries);
}

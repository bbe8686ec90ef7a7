/** Which client capability each client-input method needs, and the error when the client lacks it. */
import { brandErrorClass, type JsonObject } from '@agentd/rpc-frame';
import { isJsonObject } from './json.js';

export type ClientInputMethod = 'elicitation/create' | 'sampling/createMessage' | 'roots/list';

/** Thrown (to the handler) by elicit/sample/listRoots when this request's client did not declare the capability. */
export class MissingClientCapabilityError extends Error {
  override name = 'MissingClientCapabilityError';
  /** A ClientCapabilities object, e.g. `{sampling: {}}`. */
  readonly requiredCapabilities: JsonObject;

  constructor(requiredCapabilities: JsonObject) {
    super(`the client did not declare the capability: ${Object.keys(requiredCapabilities).join(', ')}`);
    this.requiredCapabilities = requiredCapabilities;
  }
}

// Recognised across installed copies of this package, as rpc-frame's error classes are.
brandErrorClass(MissingClientCapabilityError, '@agentd/dispatch/MissingClientCapabilityError');

export function isClientInputMethod(method: unknown): method is ClientInputMethod {
  return method === 'elicitation/create' || method === 'sampling/createMessage' || method === 'roots/list';
}

/** The capabilities a request for `method` needs that `declared` lacks; undefined when all are there. */
export function missingCapability(
  method: ClientInputMethod,
  params: JsonObject,
  declared: JsonObject,
): JsonObject | undefined {
  if (method === 'sampling/createMessage')
    return isJsonObject(declared.sampling) ? undefined : { sampling: {} };
  if (method === 'roots/list') return isJsonObject(declared.roots) ? undefined : { roots: {} };
  const elicitation = declared.elicitation;
  if (!isJsonObject(elicitation)) return { elicitation: params.mode === 'url' ? { url: {} } : {} };
  if (params.mode === 'url' && !isJsonObject(elicitation.url)) return { elicitation: { url: {} } };
  // `elicitation: {}` means form mode (2025-06-18 style); a non-empty object lists its modes.
  const declaresModes = Object.keys(elicitation).length > 0;
  if (params.mode !== 'url' && declaresModes && !isJsonObject(elicitation.form))
    return { elicitation: { form: {} } };
  return undefined;
}

export function mergeCapabilities(into: JsonObject, more: JsonObject): JsonObject {
  for (const [key, value] of Object.entries(more)) {
    const existing = into[key];
    into[key] = isJsonObject(existing) && isJsonObject(value) ? { ...existing, ...value } : value;
  }
  return into;
}

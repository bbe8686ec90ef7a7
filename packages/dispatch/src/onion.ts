/**
 * The one onion runner behind request middleware and tool-call hooks: layers called in order
 * around `inner`, each `next()` at most once, each result an object. What `inner` throws passes
 * through unchanged; a layer's own WireError answers as it is; any other throw of a layer is
 * logged and answered -32603 (its details never reach the client).
 */
import { refuse } from '@agentd/lifecycle';
import { errorFields, isJsonObject, type JsonObject, type Logger, WireError } from '@agentd/rpc-frame';

export type Layer<Context> = (
  context: Context,
  next: () => Promise<JsonObject>,
) => JsonObject | Promise<JsonObject>;

export async function runOnion<Context>(
  layers: readonly Layer<Context>[],
  context: Context,
  inner: () => Promise<JsonObject>,
  logger: Logger,
  /** How log records name the layers and the request (`middleware`, `{method}`). */
  what: { layer: string; fields: Record<string, unknown> },
): Promise<JsonObject> {
  let innerFailure: { error: unknown } | undefined;
  const step = (index: number): Promise<JsonObject> => {
    const layer = layers[index];
    if (layer === undefined) {
      return inner().catch((error: unknown) => {
        innerFailure = { error };
        throw error;
      });
    }
    let called = false;
    const next = (): Promise<JsonObject> => {
      if (called) return Promise.reject(refuse.internalError());
      called = true;
      return step(index + 1);
    };
    const checked = (result: JsonObject): JsonObject => {
      if (isJsonObject(result)) return result;
      logger.error(`${what.layer} returned a non-object result`, { ...what.fields, index });
      throw refuse.internalError();
    };
    // Called in place (no extra microtask per layer); a synchronous throw becomes a rejection.
    try {
      const result = layer(context, next);
      return result instanceof Promise ? result.then(checked) : Promise.resolve(checked(result));
    } catch (error) {
      return Promise.reject(error);
    }
  };
  try {
    return await step(0);
  } catch (error) {
    if (error instanceof WireError) throw error;
    if (innerFailure !== undefined && Object.is(innerFailure.error, error)) throw error;
    logger.error(`${what.layer} failed`, { ...what.fields, ...errorFields(error) });
    throw refuse.internalError();
  }
}

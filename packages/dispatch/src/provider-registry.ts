/** The Dispatcher's method providers: who serves which method, and what they add to the capabilities. */
import type { JsonObject } from '@agentd/rpc-frame';
import type { ServerCapabilities } from '@agentd/server';
import { dispatchError } from './local-errors.js';
import type { MethodProvider, ProviderHost } from './method-provider.js';

/** What every provider adds now, merged. */
export interface Provided {
  readonly needs: ReadonlySet<string>;
  readonly capabilities: ServerCapabilities;
  readonly extensions: JsonObject;
}

export class ProviderRegistry {
  /** Method -> the provider serving it; the providers in registration order. */
  readonly #byMethod = new Map<string, MethodProvider>();
  readonly #list: MethodProvider[] = [];
  readonly #isCoreMethod: (method: string) => boolean;
  readonly #host: ProviderHost;
  #provided: { revision: number; value: Provided } | undefined;

  /** `host.changed()` is called on every registration and withdrawal too. */
  constructor(isCoreMethod: (method: string) => boolean, host: ProviderHost) {
    this.#isCoreMethod = isCoreMethod;
    this.#host = host;
  }

  register(provider: MethodProvider): () => boolean {
    if (typeof provider !== 'object' || provider === null || typeof provider.handle !== 'function')
      throw dispatchError('invalid_definition', 'a method provider needs a handle function');
    const { name, methods } = provider;
    if (!Array.isArray(methods) || methods.some((m) => typeof m !== 'string' || m === ''))
      throw dispatchError('invalid_definition', `provider ${name}: methods must be non-empty strings`);
    for (const method of methods) {
      const owner = this.#isCoreMethod(method) ? 'the dispatcher' : this.#byMethod.get(method)?.name;
      if (owner !== undefined)
        throw dispatchError('duplicate', `provider ${name}: ${method} is already served by ${owner}`);
    }
    provider.attach?.(this.#host);
    for (const method of methods) this.#byMethod.set(method, provider);
    this.#list.push(provider);
    this.#host.changed();
    return () => {
      const at = this.#list.indexOf(provider);
      if (at === -1) return false;
      this.#list.splice(at, 1);
      for (const method of methods) this.#byMethod.delete(method);
      this.#host.changed();
      return true;
    };
  }

  /** The provider serving `method` right now, if any. */
  serving(method: string): MethodProvider | undefined {
    const provider = this.#byMethod.get(method);
    return provider !== undefined && (provider.active?.(method) ?? true) ? provider : undefined;
  }

  /** Lets every provider refuse the params of a core method before it runs. */
  inspect(method: string, params: JsonObject): void {
    for (const provider of this.#list) provider.inspect?.(method, params);
  }

  /** What the providers add, merged once per `revision` (capabilities are read on every request). */
  provided(revision: number): Provided {
    if (this.#provided?.revision === revision) return this.#provided.value;
    const needs = new Set<string>();
    const capabilities: ServerCapabilities = {};
    const extensions: JsonObject = {};
    for (const provider of this.#list) {
      const adds = provider.capabilities?.();
      if (adds === undefined) continue;
      for (const need of adds.needs ?? []) needs.add(need);
      Object.assign(capabilities, adds.capabilities);
      Object.assign(extensions, adds.extensions);
    }
    const value: Provided = { needs, capabilities, extensions };
    this.#provided = { revision, value };
    return value;
  }

  async close(): Promise<void> {
    for (const provider of this.#list) await provider.close?.();
  }
}

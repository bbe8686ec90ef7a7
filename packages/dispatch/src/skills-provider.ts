/**
 * Skills (SEP-2640) as a MethodProvider: skills/list, skills/get and resources/directory/read,
 * served while the skills extension is declared; skill files are resources, so it needs them.
 */
import { SKILL_SCHEME, SKILLS_EXTENSION, SkillsMethod } from '@agentd/lifecycle/skills';
import type { JsonObject } from '@agentd/rpc-frame';
import type { RequestContext } from '@agentd/server';
import type { Catalogue } from './catalogue.js';
import type { DispatchEnv } from './dispatch-env.js';
import type { MethodProvider, ProvidedCapabilities, ProviderHost } from './method-provider.js';
import { checkedSkillUri, handleSkillsMethod, isSkillsMethod } from './skills-methods.js';
import { SkillRegistry, type SkillsOptions } from './skills-registry.js';

const NEEDS_RESOURCES: ProvidedCapabilities = Object.freeze({ needs: ['resources'] as const });

export class SkillsProvider implements MethodProvider {
  static readonly extensionId = SKILLS_EXTENSION;
  readonly name = 'skills';
  readonly methods = Object.values(SkillsMethod);
  readonly registry: SkillRegistry;
  readonly #env: DispatchEnv;
  #host: ProviderHost | undefined;

  /** `declare(settings)` declares the extension on the dispatcher: the first skill (or folder) offers it. */
  constructor(
    catalogue: Catalogue,
    env: DispatchEnv,
    options: SkillsOptions | undefined,
    declare: (settings: JsonObject) => void,
  ) {
    this.#env = env;
    const settings = options?.directoryRead === false ? {} : { directoryRead: true };
    this.registry = new SkillRegistry(catalogue, () => {
      if (this.#settings() === undefined) declare(settings);
    });
  }

  attach(host: ProviderHost): void {
    this.#host = host;
  }

  active(method: string): boolean {
    const settings = this.#settings();
    return settings !== undefined && isSkillsMethod(method, settings.directoryRead === true);
  }

  handle(method: string, params: JsonObject, context: RequestContext): JsonObject | Promise<JsonObject> {
    return handleSkillsMethod(this.registry, this.#env, method, params, context);
  }

  /** A traversing skill URI is refused as such, not answered as an unknown resource. */
  inspect(method: string, params: JsonObject): void {
    if (method !== 'resources/read' || this.#settings() === undefined) return;
    const uri = params.uri;
    if (typeof uri === 'string' && uri.startsWith(`${SKILL_SCHEME}://`)) checkedSkillUri(uri);
  }

  capabilities(): ProvidedCapabilities | undefined {
    return this.#settings() === undefined ? undefined : NEEDS_RESOURCES;
  }

  close(): void {
    this.registry.close();
  }

  #settings(): JsonObject | undefined {
    return this.#host?.extension(SKILLS_EXTENSION);
  }
}

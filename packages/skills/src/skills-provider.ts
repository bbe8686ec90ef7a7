/**
 * Skills (SEP-2640) as a MethodProvider: skills/list, skills/get and resources/directory/read,
 * served while the skills extension is declared; skill files are resources, so it needs them.
 */
import type { Dispatcher } from '@agentd/dispatch';
import type { MethodProvider, ProvidedCapabilities, ProviderHost } from '@agentd/dispatch/provider';
import { SKILL_SCHEME, SKILLS_EXTENSION, SkillsMethod } from '@agentd/lifecycle/skills';
import type { JsonObject } from '@agentd/rpc-frame';
import type { RequestContext } from '@agentd/server';
import { checkedSkillUri, handleSkillsMethod, isSkillsMethod } from './skills-methods.js';
import { SkillRegistry } from './skills-registry.js';

const NEEDS_RESOURCES: ProvidedCapabilities = Object.freeze({ needs: ['resources'] as const });
/** What the first skill (or folder) declares, unless the server declared the extension itself. */
const DEFAULT_SETTINGS: JsonObject = Object.freeze({ directoryRead: true });

export class SkillsProvider implements MethodProvider {
  readonly name = 'skills';
  readonly methods = Object.values(SkillsMethod);
  readonly registry: SkillRegistry;
  #host: ProviderHost | undefined;

  constructor(dispatcher: Dispatcher) {
    this.registry = new SkillRegistry(dispatcher, () => {
      if (this.#settings() === undefined) dispatcher.declareExtension(SKILLS_EXTENSION, DEFAULT_SETTINGS);
    });
  }

  attach(host: ProviderHost): void {
    this.#host = host;
  }

  /** The host the Dispatcher gave at registration (before any request or skill). */
  get host(): ProviderHost {
    if (this.#host === undefined) throw new Error('the skills provider is not registered on a Dispatcher');
    return this.#host;
  }

  active(method: string): boolean {
    const settings = this.#settings();
    return settings !== undefined && isSkillsMethod(method, settings.directoryRead === true);
  }

  handle(method: string, params: JsonObject, context: RequestContext): JsonObject | Promise<JsonObject> {
    return handleSkillsMethod(this.registry, this.host, method, params, context);
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

/**
 * The skills a dispatcher serves: built entries by SKILL.md URI, each file published once as an
 * ordinary resource of the dispatcher (so resources/list, resources/read, filters, subscriptions and
 * list_changed apply unchanged), and the directory tree `resources/directory/read` walks.
 */

import type { Dispatcher, HandlerContext } from '@agentd/dispatch';
import {
  DIRECTORY_MIME_TYPE,
  SKILL_MANIFEST,
  SKILL_MANIFEST_MIME_TYPE,
  SKILL_SCHEME,
} from '@agentd/lifecycle/skills';
import type { JsonObject } from '@agentd/rpc-frame';
import { toBase64 } from './base64.js';
import { deepFreeze } from './deep-freeze.js';
import { skillsError } from './local-errors.js';
import {
  type BuiltSkill,
  buildSkill,
  type DynamicSkillSource,
  type SkillDefinition,
  type SkillFile,
} from './skill-build.js';
import { skillFileMimeType } from './skill-mime.js';
import { type SortedEntries, sortedByKey } from './sorted-entries.js';

interface PublishedFile {
  file: SkillFile;
  /** SKILL.md URIs of the skills listing this file (nested skills share files with their encloser). */
  readonly holders: Set<string>;
}

/** A child in a directory listing: a file (its resource entry) or a subdirectory. */
export interface DirectoryChild {
  readonly uri: string;
  readonly directory: boolean;
  /** The `resources/directory/read` entry. */
  readonly entry: JsonObject;
}

/** A dynamic skill file's `resources/read` content, or undefined when the source has none. */
type DynamicContent =
  | { uri: string; mimeType: string; text: string }
  | { uri: string; mimeType: string; blob: string };

export class SkillRegistry {
  readonly #dispatcher: Dispatcher;
  readonly #offer: () => void;
  readonly #skills = new Map<string, BuiltSkill>();
  readonly #files = new Map<string, PublishedFile>();
  readonly #closers = new Set<() => void>();
  #list: SortedEntries<BuiltSkill> | undefined;
  #tree: Map<string, SortedEntries<DirectoryChild>> | undefined;

  /** `offer` declares the extension on the dispatcher (idempotent). */
  constructor(dispatcher: Dispatcher, offer: () => void) {
    this.#dispatcher = dispatcher;
    this.#offer = offer;
  }

  /** Offers the extension even while no skill is registered (an empty folder, skills still to come). */
  declare(): void {
    this.#offer();
  }

  register(definition: SkillDefinition): () => boolean {
    const skill = buildSkill(definition);
    if (this.#skills.has(skill.uri))
      throw skillsError('duplicate', `skill ${skill.uri} is already registered`);
    if (skill.dynamic) return this.#registerDynamic(skill, skill.dynamic);
    // Check every file before publishing any, so a refused skill leaves nothing behind.
    for (const file of skill.files) {
      const published = this.#files.get(file.uri);
      if (published) {
        if (published.file.digest !== file.digest) {
          throw skillsError(
            'duplicate',
            `skill ${skill.uri}: ${file.uri} is already served with other content by ${[...published.holders][0]}`,
          );
        }
      } else if (this.#dispatcher.hasResource(file.uri)) {
        throw skillsError('duplicate', `skill ${skill.uri}: resource ${file.uri} is already registered`);
      }
    }
    this.#offer();
    for (const file of skill.files) this.#publish(skill.uri, file);
    this.#skills.set(skill.uri, skill);
    this.#invalidate();
    return () => this.remove(skill.uri);
  }

  remove(uri: string): boolean {
    const skill = this.#skills.get(uri);
    if (!skill) return false;
    this.#skills.delete(uri);
    if (skill.dynamic) {
      this.#dispatcher.removeResource(skill.uri);
      this.#dispatcher.removeResourceTemplate(dynamicTemplate(skill));
      this.#invalidate();
      return true;
    }
    for (const file of skill.files) {
      const published = this.#files.get(file.uri);
      if (!published) continue;
      published.holders.delete(uri);
      if (published.holders.size === 0) {
        this.#files.delete(file.uri);
        this.#dispatcher.removeResource(file.uri);
      }
    }
    this.#invalidate();
    return true;
  }

  get(uri: string): BuiltSkill | undefined {
    return this.#skills.get(uri);
  }

  /** The skills by SKILL.md URI, sorted. */
  list(): SortedEntries<BuiltSkill> {
    this.#list ??= sortedByKey(this.#skills);
    return this.#list;
  }

  /** The children of a directory resource, or undefined when `uri` is no directory this registry serves. */
  directory(uri: string): SortedEntries<DirectoryChild> | undefined {
    this.#tree ??= this.#buildTree();
    return this.#tree.get(uri);
  }

  /** The dynamic skill whose directory `uri` is (its root or below), with the path inside it. */
  dynamicDirectory(uri: string): { skill: BuiltSkill; path: string } | undefined {
    for (const skill of this.#skills.values()) {
      if (!skill.dynamic) continue;
      if (uri === skill.root) return { skill, path: '' };
      if (uri.startsWith(`${skill.root}/`)) {
        const path = uri
          .slice(skill.root.length + 1)
          .split('/')
          .map(decodeURIComponent)
          .join('/');
        return { skill, path };
      }
    }
    return undefined;
  }

  /** True when some file at or under `uri` passes `visible`. */
  anyFileUnder(uri: string, visible: (fileUri: string) => boolean): boolean {
    const prefix = `${uri}/`;
    for (const fileUri of this.#files.keys()) if (fileUri.startsWith(prefix) && visible(fileUri)) return true;
    return false;
  }

  /** Runs `closer` on `close()` (folder watchers). */
  onClose(closer: () => void): () => void {
    this.#closers.add(closer);
    return () => this.#closers.delete(closer);
  }

  close(): void {
    for (const closer of [...this.#closers]) closer();
    this.#closers.clear();
  }

  #registerDynamic(skill: BuiltSkill, source: DynamicSkillSource): () => boolean {
    const template = dynamicTemplate(skill);
    if (this.#dispatcher.hasResource(skill.uri) || this.#files.has(skill.uri))
      throw skillsError('duplicate', `skill ${skill.uri}: resource ${skill.uri} is already registered`);
    if (this.#dispatcher.hasResourceTemplate(template))
      throw skillsError('duplicate', `skill ${skill.uri}: template ${template} is already registered`);
    this.#offer();
    this.#dispatcher.registerResource({
      uri: skill.uri,
      name: skill.name,
      description: skill.description,
      mimeType: SKILL_MANIFEST_MIME_TYPE,
      read: async (_uri, context) =>
        dynamicContent(skill.uri, SKILL_MANIFEST, await source.read(SKILL_MANIFEST, context)),
    });
    this.#dispatcher.registerResourceTemplate({
      uriTemplate: template,
      name: `${skill.name} files`,
      description: `Files of the generated skill ${skill.name}`,
      read: async (uri: string, variables: Record<string, string | string[]>, context: HandlerContext) => {
        const path = String(variables.path ?? '');
        return dynamicContent(uri, path, await source.read(path, context));
      },
    });
    this.#skills.set(skill.uri, skill);
    this.#invalidate();
    return () => this.remove(skill.uri);
  }

  #publish(holder: string, file: SkillFile): void {
    const published = this.#files.get(file.uri);
    if (published) {
      published.holders.add(holder);
      // A nested SKILL.md is also a plain file of its encloser; as a manifest it gets the skill's name.
      if (file.path === SKILL_MANIFEST && published.file.path !== SKILL_MANIFEST) {
        published.file = file;
        this.#dispatcher.removeResource(file.uri);
        this.#addResource(file);
      }
      return;
    }
    this.#files.set(file.uri, { file, holders: new Set([holder]) });
    this.#addResource(file);
  }

  #addResource(file: SkillFile): void {
    const content = file.content;
    this.#dispatcher.registerResource({
      uri: file.uri,
      name: file.name,
      ...(file.description === undefined ? {} : { description: file.description }),
      mimeType: file.mimeType,
      size: file.size,
      read: () => content,
    });
  }

  #invalidate(): void {
    this.#list = undefined;
    this.#tree = undefined;
  }

  #buildTree(): Map<string, SortedEntries<DirectoryChild>> {
    const children = new Map<string, Map<string, DirectoryChild>>();
    const childrenOf = (dir: string) => {
      let map = children.get(dir);
      if (!map) {
        map = new Map();
        children.set(dir, map);
      }
      return map;
    };
    for (const [uri, published] of this.#files) {
      const schemeEnd = uri.indexOf('://') + 3;
      const segments = uri.slice(schemeEnd).split('/');
      const scheme = uri.slice(0, schemeEnd);
      // Every proper prefix of the path is a directory: `skill://acme`, `skill://acme/billing`, …
      for (let depth = 1; depth < segments.length; depth++) {
        const dir = scheme + segments.slice(0, depth).join('/');
        const childName = segments[depth] as string;
        const childUri = `${dir}/${childName}`;
        const isFile = depth === segments.length - 1;
        const map = childrenOf(dir);
        if (map.has(childName)) continue;
        const entry = isFile ? fileEntry(published.file) : directoryEntry(childUri, childName);
        map.set(childName, { uri: childUri, directory: !isFile, entry });
      }
    }
    // A dynamic skill's root is a directory of its parent (its own children come from `list`).
    for (const skill of this.#skills.values()) {
      if (!skill.dynamic) continue;
      const segments = skill.path.split('/');
      for (let depth = 1; depth < segments.length; depth++) {
        const dir = `${SKILL_SCHEME}://${segments.slice(0, depth).join('/')}`;
        const childName = segments[depth] as string;
        const map = childrenOf(dir);
        if (map.has(childName)) continue;
        const childUri = `${dir}/${childName}`;
        map.set(childName, { uri: childUri, directory: true, entry: directoryEntry(childUri, childName) });
      }
    }
    return new Map([...children].map(([dir, map]) => [dir, sortedByKey(map)] as const));
  }
}

function dynamicTemplate(skill: BuiltSkill): string {
  return `${skill.root}/{+path}`;
}

/** A `resources/directory/read` entry of a subdirectory. */
export function directoryEntry(uri: string, encodedName: string): JsonObject {
  return deepFreeze({ uri, name: decodeURIComponent(encodedName), mimeType: DIRECTORY_MIME_TYPE });
}

function dynamicContent(
  uri: string,
  path: string,
  value: string | Uint8Array | undefined,
): DynamicContent | undefined {
  if (value === undefined) return undefined;
  const fileName = path.slice(path.lastIndexOf('/') + 1);
  const mimeType = path === SKILL_MANIFEST ? SKILL_MANIFEST_MIME_TYPE : skillFileMimeType(fileName);
  if (typeof value === 'string') return { uri, mimeType, text: value };
  return { uri, mimeType, blob: toBase64(value) };
}

/** A file's `resources/directory/read` entry: its `resources/list` entry (as `#addResource` registers it). */
function fileEntry(file: SkillFile): JsonObject {
  const entry: JsonObject = { uri: file.uri, name: file.name };
  if (file.description !== undefined) entry.description = file.description;
  entry.mimeType = file.mimeType;
  entry.size = file.size;
  return deepFreeze(entry);
}

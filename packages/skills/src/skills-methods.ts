/**
 * The Skills extension's methods, both eras: `skills/list` (whole entries per page, never split),
 * `skills/get` (one entry, no cursor) and `resources/directory/read` (direct children, directories
 * as `inode/directory`). Hidden skills and files answer like missing ones.
 */
import type { ProviderHost } from '@agentd/dispatch/provider';
import { refuse } from '@agentd/lifecycle';
import {
  isTraversingSkillUri,
  SkillErrorText,
  SkillsMethod,
  skillsInvalidParams,
} from '@agentd/lifecycle/skills';
import type { JsonObject } from '@agentd/rpc-frame';
import type { RequestContext } from '@agentd/server';
import type { BuiltSkill, DynamicSkillSource } from './skill-build.js';
import { skillFileMimeType } from './skill-mime.js';
import { directoryEntry, type SkillRegistry } from './skills-registry.js';
import { sortedByKey } from './sorted-entries.js';

type Visibility = ReturnType<ProviderHost['resources']>;

/**
 * A skill is served to a peer only whole: an entry must list every file, so a peer that may not
 * see one of them does not see the skill (its visible files stay readable as plain resources).
 */
function skillVisible(skill: BuiltSkill, visibility: Visibility): boolean {
  return visibility.permissive || skill.files.every((file) => visibility.visible(file.uri));
}

/** True for a method the skills registry answers (`resources/directory/read` only with `directoryRead`). */
export function isSkillsMethod(method: string, directoryRead: boolean): boolean {
  return (
    method === SkillsMethod.list ||
    method === SkillsMethod.get ||
    (method === SkillsMethod.directoryRead && directoryRead)
  );
}

export function handleSkillsMethod(
  registry: SkillRegistry,
  host: ProviderHost,
  method: string,
  params: JsonObject,
  context: RequestContext,
): JsonObject | Promise<JsonObject> {
  if (method === SkillsMethod.list) return listSkills(registry, host, params, context);
  if (method === SkillsMethod.get) return getSkill(registry, host, params, context);
  return readDirectory(registry, host, params, context);
}

/** Refuses a non-string or traversing `uri` with -32602; returns it. */
export function checkedSkillUri(uri: unknown): string {
  if (typeof uri !== 'string' || uri === '') throw skillsInvalidParams(SkillErrorText.uriRequired);
  if (isTraversingSkillUri(uri)) throw skillsInvalidParams(SkillErrorText.traversal(uri), uri);
  return uri;
}

function listSkills(
  registry: SkillRegistry,
  host: ProviderHost,
  params: JsonObject,
  context: RequestContext,
): JsonObject {
  const visibility = host.resources(context);
  const keep = visibility.permissive ? undefined : (skill: BuiltSkill) => visibility.visible(skill.uri);
  const { items, nextCursor } = host.page('skills', registry.list(), params.cursor, keep);
  const result: JsonObject = { skills: items.map((skill) => skill.entry) };
  if (nextCursor !== undefined) result.nextCursor = nextCursor;
  return host.finish(context, result, 'list');
}

function getSkill(
  registry: SkillRegistry,
  host: ProviderHost,
  params: JsonObject,
  context: RequestContext,
): JsonObject {
  const uri = checkedSkillUri(params.uri);
  const skill = registry.get(uri);
  if (!skill || !skillVisible(skill, host.resources(context)))
    throw skillsInvalidParams(SkillErrorText.noSkill(uri), uri);
  return host.finish(context, { skill: skill.entry }, 'read');
}

function readDirectory(
  registry: SkillRegistry,
  host: ProviderHost,
  params: JsonObject,
  context: RequestContext,
): JsonObject | Promise<JsonObject> {
  const uri = checkedSkillUri(params.uri);
  const visibility = host.resources(context);
  const dynamic = registry.dynamicDirectory(uri);
  if (dynamic) return readDynamicDirectory(host, uri, dynamic, params, context);
  const visible = (fileUri: string) => visibility.visible(fileUri);
  const children = registry.directory(uri);
  if (!children || (!visibility.permissive && !registry.anyFileUnder(uri, visible)))
    throw skillsInvalidParams(SkillErrorText.notDirectory(uri), uri);
  const keep = visibility.permissive
    ? undefined
    : (child: { uri: string; directory: boolean }) =>
        child.directory ? registry.anyFileUnder(child.uri, visible) : visible(child.uri);
  const { items, nextCursor } = host.page(`directory ${uri}`, children, params.cursor, keep);
  const result: JsonObject = { resources: items.map((child) => child.entry) };
  if (nextCursor !== undefined) result.nextCursor = nextCursor;
  // Cacheable on 2026-07-28 like the other listings (the official client requires both fields).
  return host.finish(context, result, 'list');
}

/** A generated skill's directory: its children as the source lists them now. */
async function readDynamicDirectory(
  host: ProviderHost,
  uri: string,
  { skill, path }: { skill: BuiltSkill; path: string },
  params: JsonObject,
  context: RequestContext,
): Promise<JsonObject> {
  const visibility = host.resources(context);
  if (!visibility.visible(skill.uri) || skill.dynamic?.list === undefined)
    throw skillsInvalidParams(SkillErrorText.notDirectory(uri), uri);
  let listed: Awaited<ReturnType<NonNullable<DynamicSkillSource['list']>>>;
  try {
    listed = await skill.dynamic.list(path);
  } catch (error) {
    host.logger.error('skill directory listing failed', {
      uri,
      error: error instanceof Error ? error.stack : String(error),
    });
    throw refuse.internalError();
  }
  if (listed === undefined) throw skillsInvalidParams(SkillErrorText.notDirectory(uri), uri);
  const children = sortedByKey(
    listed
      .filter(
        (child) =>
          typeof child?.name === 'string' &&
          child.name !== '' &&
          !/[/\\\0]/.test(child.name) &&
          child.name !== '.' &&
          child.name !== '..',
      )
      .map((child) => {
        const encoded = encodeURIComponent(child.name);
        const childUri = `${uri}/${encoded}`;
        const entry = child.directory
          ? directoryEntry(childUri, encoded)
          : { uri: childUri, name: child.name, mimeType: skillFileMimeType(child.name) };
        return [encoded, { uri: childUri, entry }] as const;
      }),
  );
  const keep = visibility.permissive ? undefined : (child: { uri: string }) => visibility.visible(child.uri);
  const { items, nextCursor } = host.page(`directory ${uri}`, children, params.cursor, keep);
  const result: JsonObject = { resources: items.map((child) => child.entry) };
  if (nextCursor !== undefined) result.nextCursor = nextCursor;
  return host.finish(context, result, 'list');
}

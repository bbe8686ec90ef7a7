/**
 * The Skills extension's methods, both eras: `skills/list` (whole entries per page, never split),
 * `skills/get` (one entry, no cursor) and `resources/directory/read` (direct children, directories
 * as `inode/directory`). Hidden skills and files answer like missing ones.
 */
import { refuse } from '@agentd/lifecycle';
import {
  isTraversingSkillUri,
  SkillErrorText,
  SkillsMethod,
  skillsInvalidParams,
} from '@agentd/lifecycle/skills';
import type { JsonObject } from '@agentd/rpc-frame';
import type { RequestContext } from '@agentd/server';
import type { CompiledFilters } from './client-filters.js';
import { decodeCursor, encodeCursor } from './cursor.js';
import { type DispatchEnv, finishResult } from './dispatch-env.js';
import type { BuiltSkill, DynamicSkillSource } from './skill-build.js';
import { skillFileMimeType } from './skill-mime.js';
import { directoryEntry, type SkillRegistry } from './skills-registry.js';
import { SortedList } from './sorted-list.js';

/**
 * A skill is served to a peer only whole: an entry must list every file, so a peer that may not
 * see one of them does not see the skill (its visible files stay readable as plain resources).
 */
function skillVisible(skill: BuiltSkill, filters: CompiledFilters): boolean {
  return filters.permissive || skill.files.every((file) => filters.resourceVisible(file.uri));
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
  env: DispatchEnv,
  method: string,
  params: JsonObject,
  context: RequestContext,
): JsonObject | Promise<JsonObject> {
  if (method === SkillsMethod.list) return listSkills(registry, env, params, context);
  if (method === SkillsMethod.get) return getSkill(registry, env, params, context);
  return readDirectory(registry, env, params, context);
}

/** Refuses a non-string or traversing `uri` with -32602; returns it. */
export function checkedSkillUri(uri: unknown): string {
  if (typeof uri !== 'string' || uri === '') throw skillsInvalidParams(SkillErrorText.uriRequired);
  if (isTraversingSkillUri(uri)) throw skillsInvalidParams(SkillErrorText.traversal(uri), uri);
  return uri;
}

function listSkills(
  registry: SkillRegistry,
  env: DispatchEnv,
  params: JsonObject,
  context: RequestContext,
): JsonObject {
  const filters = env.filters(context.peer);
  const keep = filters.permissive
    ? undefined
    : (skill: { uri: string }) => filters.resourceVisible(skill.uri);
  const after = decodeCursor('skills', params.cursor);
  const { items, nextAfter } = registry.list().page(after, env.pageSize, keep);
  const result: JsonObject = { skills: items.map((skill) => skill.entry) };
  if (nextAfter !== undefined) result.nextCursor = encodeCursor('skills', nextAfter);
  return finishResult(context, result, env.listCache());
}

function getSkill(
  registry: SkillRegistry,
  env: DispatchEnv,
  params: JsonObject,
  context: RequestContext,
): JsonObject {
  const uri = checkedSkillUri(params.uri);
  const skill = registry.get(uri);
  if (!skill || !skillVisible(skill, env.filters(context.peer)))
    throw skillsInvalidParams(SkillErrorText.noSkill(uri), uri);
  return finishResult(context, { skill: skill.entry }, env.readCache(undefined));
}

function readDirectory(
  registry: SkillRegistry,
  env: DispatchEnv,
  params: JsonObject,
  context: RequestContext,
): JsonObject | Promise<JsonObject> {
  const uri = checkedSkillUri(params.uri);
  const filters = env.filters(context.peer);
  const dynamic = registry.dynamicDirectory(uri);
  if (dynamic) return readDynamicDirectory(env, uri, dynamic, params, context);
  const visible = (fileUri: string) => filters.resourceVisible(fileUri);
  const children = registry.directory(uri);
  if (!children || (!filters.permissive && !registry.anyFileUnder(uri, visible)))
    throw skillsInvalidParams(SkillErrorText.notDirectory(uri), uri);
  const listName = `directory ${uri}`;
  const after = decodeCursor(listName, params.cursor);
  const keep = filters.permissive
    ? undefined
    : (child: { uri: string; directory: boolean }) =>
        child.directory ? registry.anyFileUnder(child.uri, visible) : visible(child.uri);
  const { items, nextAfter } = children.page(after, env.pageSize, keep);
  const result: JsonObject = { resources: items.map((child) => child.entry) };
  if (nextAfter !== undefined) result.nextCursor = encodeCursor(listName, nextAfter);
  // Cacheable on 2026-07-28 like the other listings (the official client requires both fields).
  return finishResult(context, result, env.listCache());
}

/** A generated skill's directory: its children as the source lists them now. */
async function readDynamicDirectory(
  env: DispatchEnv,
  uri: string,
  { skill, path }: { skill: BuiltSkill; path: string },
  params: JsonObject,
  context: RequestContext,
): Promise<JsonObject> {
  const filters = env.filters(context.peer);
  if (!filters.resourceVisible(skill.uri) || skill.dynamic?.list === undefined)
    throw skillsInvalidParams(SkillErrorText.notDirectory(uri), uri);
  let listed: Awaited<ReturnType<NonNullable<DynamicSkillSource['list']>>>;
  try {
    listed = await skill.dynamic.list(path);
  } catch (error) {
    env.logger.error('skill directory listing failed', {
      uri,
      error: error instanceof Error ? error.stack : String(error),
    });
    throw refuse.internalError();
  }
  if (listed === undefined) throw skillsInvalidParams(SkillErrorText.notDirectory(uri), uri);
  const children = new SortedList(
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
  const listName = `directory ${uri}`;
  const after = decodeCursor(listName, params.cursor);
  const keep = filters.permissive
    ? undefined
    : (child: { uri: string }) => filters.resourceVisible(child.uri);
  const { items, nextAfter } = children.page(after, env.pageSize, keep);
  const result: JsonObject = { resources: items.map((child) => child.entry) };
  if (nextAfter !== undefined) result.nextCursor = encodeCursor(listName, nextAfter);
  return finishResult(context, result, env.listCache());
}

/**
 * A skill definition checked against SEP-2640 and the Agent Skills format, turned into what the
 * server serves: the frozen `Skill` entry (verbatim frontmatter, complete `{uri, digest, size}`
 * manifest) and one resource per file. Registration-time problems are LocalErrors.
 */

import type { HandlerContext } from '@agentd/dispatch';
import { sha256 } from '@agentd/dispatch/provider';
import {
  SKILL_AUTHORITY_PATTERN,
  SKILL_DESCRIPTION_MAX,
  SKILL_LIMITS,
  SKILL_MANIFEST,
  SKILL_MANIFEST_MIME_TYPE,
  SKILL_NAME_PATTERN,
  SKILL_SCHEME,
  skillManifestUri,
} from '@agentd/lifecycle/skills';
import type { JsonObject } from '@agentd/rpc-frame';
import { toBase64 } from './base64.js';
import { deepFreeze } from './deep-freeze.js';
import { skillsError } from './local-errors.js';
import { parseFrontmatter } from './skill-frontmatter.js';
import { skillFileMimeType } from './skill-mime.js';

/** A skill registered in code: its `<skill-path>` and its files (path inside the skill → content). */
export type SkillDefinition = StaticSkillDefinition | DynamicSkillDefinition;

/** A skill with fixed files: served with a complete `{uri, digest, size}` manifest. */
interface StaticSkillDefinition {
  /**
   * `/`-separated path of the skill directory in the server's skill namespace, e.g.
   * `git-workflow` or `acme/billing/refunds`. The last segment is the skill's name and must equal
   * SKILL.md's frontmatter `name`.
   */
  path: string;
  /** Every file of the skill by its `/`-separated path inside the skill; `SKILL.md` is required. */
  files: Readonly<Record<string, string | Uint8Array>>;
}

/** One child of a dynamic skill's directory, as `DynamicSkillSource.list` reports it. */
interface DynamicSkillChild {
  name: string;
  directory?: boolean;
}

/** Where a dynamic skill's content comes from, asked at each read. */
export interface DynamicSkillSource {
  /** A file's content by its path inside the skill (`SKILL.md` included); undefined when there is none. */
  read(
    filePath: string,
    context: HandlerContext,
  ): string | Uint8Array | undefined | Promise<string | Uint8Array | undefined>;
  /** A directory's direct children (`''` is the skill root), for `resources/directory/read`; undefined when there is none. */
  list?(
    directoryPath: string,
  ): readonly DynamicSkillChild[] | undefined | Promise<readonly DynamicSkillChild[] | undefined>;
}

/**
 * A skill whose content is generated, so no stable digests exist: its entry says
 * `"resources": "dynamic"`. `frontmatter` is what the generated SKILL.md must begin with.
 */
interface DynamicSkillDefinition {
  path: string;
  frontmatter: { name: string; description: string; [key: string]: unknown };
  dynamic: DynamicSkillSource;
}

/** One served file of a skill. */
export interface SkillFile {
  readonly uri: string;
  /** Path inside the skill, `/`-separated, not encoded. */
  readonly path: string;
  readonly digest: string;
  readonly size: number;
  readonly mimeType: string;
  /** The `resources/read` content item (text when the bytes are UTF-8, else base64 blob). */
  readonly content: JsonObject;
  /** The resource's name and description in `resources/list`. */
  readonly name: string;
  readonly description: string | undefined;
}

export interface BuiltSkill {
  /** The SKILL.md URI: the skill's identity. */
  readonly uri: string;
  /** `<scheme>://<skill-path>`, the skill's root directory resource. */
  readonly root: string;
  readonly path: string;
  readonly name: string;
  /** The frozen `Skill` entry of skills/list and skills/get. */
  readonly entry: JsonObject;
  /** Static skills: every file. Dynamic ones: none (their content comes from `dynamic`). */
  readonly files: readonly SkillFile[];
  readonly dynamic: DynamicSkillSource | undefined;
  /** SKILL.md's description (the resource's). */
  readonly description: string;
}

const PATH_SEGMENT = /^[A-Za-z0-9\-._~!$&'()*+,;=:@]+$/;
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

function invalid(path: string, message: string): Error {
  return skillsError('invalid_definition', `skill ${JSON.stringify(path)}: ${message}`);
}

function isDotSegment(segment: string): boolean {
  return segment === '.' || segment === '..';
}

/** Checks `<skill-path>`; returns its segments. */
function skillPathSegments(path: unknown): string[] {
  if (typeof path !== 'string' || path === '')
    throw skillsError('invalid_definition', 'skill path must be a non-empty string');
  const segments = path.split('/');
  segments.forEach((segment, index) => {
    if (segment === '' || isDotSegment(segment))
      throw invalid(path, `path has an empty, '.' or '..' segment`);
    if (index === 0 && !SKILL_AUTHORITY_PATTERN.test(segment))
      throw invalid(
        path,
        `first segment ${JSON.stringify(segment)} is not a URI authority (RFC 3986 reg-name)`,
      );
    if (!PATH_SEGMENT.test(segment))
      throw invalid(path, `segment ${JSON.stringify(segment)} is not a plain URI path segment`);
  });
  const name = segments[segments.length - 1] as string;
  if (!SKILL_NAME_PATTERN.test(name)) {
    throw invalid(
      path,
      `skill name ${JSON.stringify(name)} breaks the Agent Skills naming rules (1-64 lowercase letters, digits and hyphens, no leading, trailing or doubled hyphen)`,
    );
  }
  return segments;
}

/** Checks a file's path inside its skill; returns its segments. */
function filePathSegments(skillPath: string, filePath: string): string[] {
  const segments = filePath.split('/');
  for (const segment of segments) {
    if (segment === '' || isDotSegment(segment) || /[\\\0]/.test(segment))
      throw invalid(
        skillPath,
        `file ${JSON.stringify(filePath)} has an empty, '.', '..' or backslash segment`,
      );
  }
  return segments;
}

function bytesOf(content: string | Uint8Array): Uint8Array {
  return typeof content === 'string' ? new TextEncoder().encode(content) : content;
}

function textOf(bytes: Uint8Array): string | undefined {
  try {
    const text = utf8.decode(bytes);
    return text.includes('\0') ? undefined : text;
  } catch {
    return undefined;
  }
}

export function buildSkill(definition: SkillDefinition): BuiltSkill {
  if (typeof definition !== 'object' || definition === null)
    throw skillsError('invalid_definition', 'skill definition must be an object');
  if ('dynamic' in definition) return buildDynamicSkill(definition);
  const segments = skillPathSegments(definition.path);
  const path = definition.path;
  const name = segments[segments.length - 1] as string;
  const files = definition.files;
  if (typeof files !== 'object' || files === null) throw invalid(path, 'files must be an object');
  const filePaths = Object.keys(files).sort();
  if (!filePaths.includes(SKILL_MANIFEST)) throw invalid(path, `has no ${SKILL_MANIFEST} at its root`);
  if (filePaths.length > SKILL_LIMITS.maxFiles)
    throw invalid(path, `has ${filePaths.length} files; a skill holds at most ${SKILL_LIMITS.maxFiles}`);
  const root = `${SKILL_SCHEME}://${path}`;
  const uri = skillManifestUri(path);
  let total = 0;
  let frontmatter: JsonObject | undefined;
  const built: SkillFile[] = [];
  const directories = new Set<string>();
  for (const filePath of filePaths) {
    const fileSegments = filePathSegments(path, filePath);
    for (let i = 1; i < fileSegments.length; i++) directories.add(fileSegments.slice(0, i).join('/'));
    const content = files[filePath];
    if (typeof content !== 'string' && !(content instanceof Uint8Array))
      throw invalid(path, `file ${JSON.stringify(filePath)} must be a string or a Uint8Array`);
    const bytes = bytesOf(content);
    total += bytes.byteLength;
    if (total > SKILL_LIMITS.maxTotalBytes) {
      throw invalid(
        path,
        `files total more than ${SKILL_LIMITS.maxTotalBytes} bytes (16 MiB), the per-skill limit`,
      );
    }
    const text = textOf(bytes);
    const isManifest = filePath === SKILL_MANIFEST;
    const fileName = fileSegments[fileSegments.length - 1] as string;
    const mimeType = isManifest ? SKILL_MANIFEST_MIME_TYPE : skillFileMimeType(fileName);
    let description: string | undefined;
    if (isManifest) {
      if (text === undefined) throw invalid(path, `${SKILL_MANIFEST} is not UTF-8 text`);
      frontmatter = manifestFrontmatter(path, name, text);
      description = frontmatter.description as string;
    }
    const fileUri = `${root}/${fileSegments.map(encodeURIComponent).join('/')}`;
    const item: JsonObject = { uri: fileUri, mimeType };
    if (text === undefined) item.blob = toBase64(bytes);
    else item.text = text;
    built.push({
      uri: fileUri,
      path: filePath,
      digest: `sha256:${sha256(bytes, 'hex')}`,
      size: bytes.byteLength,
      mimeType,
      content: deepFreeze(item),
      name: isManifest ? name : fileName,
      description,
    });
  }
  for (const directory of directories) {
    if (Object.hasOwn(files, directory))
      throw invalid(path, `${JSON.stringify(directory)} is both a file and a directory`);
  }
  // SKILL.md first (the entry a host verifies the skill by), then the rest by path.
  built.sort((a, b) => (a.path === SKILL_MANIFEST ? -1 : b.path === SKILL_MANIFEST ? 1 : 0));
  const entry = deepFreeze({
    uri,
    frontmatter: frontmatter as JsonObject,
    resources: built.map((file) => ({ uri: file.uri, digest: file.digest, size: file.size })),
  });
  const description = (frontmatter as JsonObject).description as string;
  return { uri, root, path, name, entry, files: built, dynamic: undefined, description };
}

function buildDynamicSkill(definition: DynamicSkillDefinition): BuiltSkill {
  const segments = skillPathSegments(definition.path);
  const path = definition.path;
  const name = segments[segments.length - 1] as string;
  const source = definition.dynamic;
  if (typeof source !== 'object' || source === null || typeof source.read !== 'function')
    throw invalid(path, 'dynamic.read must be a function');
  if (source.list !== undefined && typeof source.list !== 'function')
    throw invalid(path, 'dynamic.list must be a function');
  if (typeof definition.frontmatter !== 'object' || definition.frontmatter === null)
    throw invalid(path, 'a dynamic skill needs its frontmatter');
  let frontmatter: JsonObject;
  try {
    frontmatter = JSON.parse(JSON.stringify(definition.frontmatter)) as JsonObject;
  } catch {
    throw invalid(path, 'frontmatter must be plain JSON');
  }
  checkFrontmatter(path, name, frontmatter);
  const uri = skillManifestUri(path);
  const entry = deepFreeze({ uri, frontmatter, resources: 'dynamic' });
  return {
    uri,
    root: `${SKILL_SCHEME}://${path}`,
    path,
    name,
    entry,
    files: [],
    dynamic: source,
    description: frontmatter.description as string,
  };
}

function manifestFrontmatter(path: string, name: string, text: string): JsonObject {
  const parsed = parseFrontmatter(text);
  if ('problem' in parsed) throw invalid(path, `${SKILL_MANIFEST} ${parsed.problem}`);
  checkFrontmatter(path, name, parsed.value);
  return parsed.value;
}

function checkFrontmatter(path: string, name: string, frontmatter: JsonObject): void {
  if (typeof frontmatter.name !== 'string' || frontmatter.name === '')
    throw invalid(path, `${SKILL_MANIFEST} frontmatter has no name`);
  if (frontmatter.name !== name) {
    throw invalid(
      path,
      `${SKILL_MANIFEST} frontmatter name ${JSON.stringify(frontmatter.name)} differs from the last path segment ${JSON.stringify(name)}`,
    );
  }
  const description = frontmatter.description;
  if (typeof description !== 'string' || description.trim() === '')
    throw invalid(path, `${SKILL_MANIFEST} frontmatter has no description`);
  if (description.length > SKILL_DESCRIPTION_MAX)
    throw invalid(path, `${SKILL_MANIFEST} description is longer than ${SKILL_DESCRIPTION_MAX} characters`);
}

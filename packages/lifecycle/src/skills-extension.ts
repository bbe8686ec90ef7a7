/**
 * The Skills extension (`io.modelcontextprotocol/skills`, SEP-2640) as protocol rules: identifier,
 * methods, limits, the skill-name rule, the URI shape and the error texts. The registry and the
 * method implementations live in `@agentd/dispatch`.
 */
import { ErrorCode } from './error-codes.js';
import { Refusal } from './refusals.js';

/** The extension identifier (server `capabilities.extensions` key). */
export const SKILLS_EXTENSION = 'io.modelcontextprotocol/skills';

/** The methods a server declaring the extension answers; the last only with `directoryRead: true`. */
export const SkillsMethod = Object.freeze({
  list: 'skills/list',
  get: 'skills/get',
  directoryRead: 'resources/directory/read',
} as const);

/** The conventional scheme of skill files: `skill://<skill-path>/<file-path>`. */
export const SKILL_SCHEME = 'skill';

/** The manifest file every skill holds at its root. */
export const SKILL_MANIFEST = 'SKILL.md';

/** `mimeType` of SKILL.md. */
export const SKILL_MANIFEST_MIME_TYPE = 'text/markdown';

/** `mimeType` of a directory resource (a skill root and each of its subdirectories). */
export const DIRECTORY_MIME_TYPE = 'inode/directory';

/** Per-skill limits every conforming host accepts; servers should not serve more. */
export const SKILL_LIMITS = Object.freeze({
  /** Entries of a skill's `resources`, SKILL.md included. */
  maxFiles: 512,
  /** Sum of `size` over a skill's `resources` (16 MiB). */
  maxTotalBytes: 16 * 1024 * 1024,
});

/**
 * Agent Skills naming rule for a skill's `name` (the final `<skill-path>` segment): 1-64
 * characters, lowercase alphanumerics and hyphens, no leading, trailing or doubled hyphen.
 */
export const SKILL_NAME_PATTERN = /^(?!.*--)[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/;

/** Agent Skills: `description` is 1-1024 characters. */
export const SKILL_DESCRIPTION_MAX = 1024;

/** RFC 3986 `reg-name` without percent-encoding: what the first `<skill-path>` segment (the authority) may hold. */
export const SKILL_AUTHORITY_PATTERN = /^[A-Za-z0-9\-._~!$&'()*+,;=]+$/;

/** Error texts the extension's methods answer with (always -32602 Invalid params). */
export const SkillErrorText = Object.freeze({
  uriRequired: 'Invalid params: uri must be a non-empty string',
  noSkill: (uri: string) => `No skill is served at ${uri}`,
  notDirectory: (uri: string) => `${uri} is not a directory resource`,
  traversal: (uri: string) =>
    `Invalid params: ${uri} has an empty, '.' or '..' path segment; skill URIs never traverse`,
});

/** -32602 with one of the texts above. */
export function skillsInvalidParams(message: string, uri?: string): Refusal {
  return new Refusal(
    'invalid-params',
    ErrorCode.InvalidParams,
    message,
    uri === undefined ? undefined : { uri },
  );
}

/** The `SKILL.md` URI of a skill at `<scheme>://<skill-path>`. */
export function skillManifestUri(skillPath: string, scheme: string = SKILL_SCHEME): string {
  return `${scheme}://${skillPath}/${SKILL_MANIFEST}`;
}

/**
 * True when a URI's path part (after `scheme://`) has an empty, `.` or `..` segment, or one that
 * decodes to a separator, a dot segment or a NUL: the shapes a path traversal takes.
 */
export function isTraversingSkillUri(uri: string): boolean {
  const start = uri.indexOf('://');
  if (start < 0) return false;
  const rest = uri.slice(start + 3);
  if (rest.includes('\\')) return true;
  for (const segment of rest.split('/')) {
    let decoded: string;
    try {
      decoded = decodeURIComponent(segment);
    } catch {
      return true;
    }
    if (decoded === '' || decoded === '.' || decoded === '..') return true;
    if (/[/\\\0]/.test(decoded)) return true;
  }
  return false;
}

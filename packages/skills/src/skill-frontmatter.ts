/** SKILL.md's leading `---` YAML block, parsed to the plain JSON object a skill entry carries verbatim. */
import { isJsonObject, type JsonObject } from '@agentd/rpc-frame';
import { parse } from 'yaml';

const BLOCK = /^---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/;

/** The frontmatter object, or a sentence saying why there is none usable. */
export function parseFrontmatter(markdown: string): { value: JsonObject } | { problem: string } {
  const text = markdown.charCodeAt(0) === 0xfeff ? markdown.slice(1) : markdown;
  const match = BLOCK.exec(text);
  if (!match) return { problem: 'does not begin with a --- delimited YAML frontmatter block' };
  let value: unknown;
  try {
    // The core schema yields only JSON types (no Dates, no binary), as hosts parsing it will see.
    value = parse(match[1] as string, { schema: 'core', uniqueKeys: true, maxAliasCount: 100 });
  } catch (error) {
    return { problem: `has frontmatter that is not valid YAML (${(error as Error).message.split('\n')[0]})` };
  }
  if (!isJsonObject(value)) return { problem: 'has frontmatter that is not a YAML mapping' };
  // An entry carries the frontmatter "rendered verbatim as a JSON object": refuse what JSON cannot hold.
  if (!isPlainJson(value)) {
    return { problem: 'has frontmatter with values JSON cannot represent (such as .inf or .nan)' };
  }
  return { value };
}

function isPlainJson(value: unknown): boolean {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value);
  if (Array.isArray(value)) return value.every(isPlainJson);
  return isJsonObject(value) && Object.values(value).every(isPlainJson);
}

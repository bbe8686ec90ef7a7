/** Skills registered in code on an McpServer or a Dispatcher. */
import type { SkillDefinition } from './skill-build.js';
import { type SkillsHost, skillsOf } from './skills-host.js';

/**
 * Registers a skill (SEP-2640) on `host`: its files become `skill://<path>/<file>` resources, and
 * skills/list, skills/get and resources/directory/read serve it. The first skill (or folder)
 * offers the `io.modelcontextprotocol/skills` extension unless the server declared it already.
 * Returns a function that removes the skill.
 */
export function registerSkill(host: SkillsHost, definition: SkillDefinition): () => boolean {
  return skillsOf(host, 'registerSkill').registry.register(definition);
}

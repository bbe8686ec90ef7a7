/**
 * @agentd/skills: Agent Skills served over MCP (SEP-2640, `io.modelcontextprotocol/skills`) on an
 * `McpServer` or a `Dispatcher` of `@agentd/dispatch`: `skill://` resources, `skills/list`,
 * `skills/get` and `resources/directory/read`, through dispatch's MethodProvider seam. Folders of
 * skills on disk are `@agentd/skills/node`'s. The extension's rules are `@agentd/lifecycle/skills`'.
 * This file is the package's public API.
 * `@public` tags the names no code in this repository imports: they are for users (knip keeps them).
 */
export { registerSkill } from './register-skill.js';
/** @public */
export type { SkillDefinition } from './skill-build.js';

/**
 * @agentd/skills/node: a folder of skills served from disk, watched and rescanned (Node, Bun and
 * Deno: it reads the file system). The main entry stays runtime-neutral. This file is the
 * subpath's public API.
 */
/** @public */
export { type SkillsFolder, type SkillsFolderOptions, serveSkillsFolder } from './skills-folder.js';

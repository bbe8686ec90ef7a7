/**
 * @agentd/dispatch/node: the stateless tool-server contract of examples/mcp-server
 * (`ContractServer`, served on any transport through the server core), and skills folders served
 * from disk. The main entry stays runtime-neutral. This file is the subpath's public API.
 * `@public` tags the names no code in this repository imports: they are for users (knip keeps them).
 */
export { ContractServer } from './contract-server.js';
/** @public */
export { type SkillsFolder, type SkillsFolderOptions, serveSkillsFolder } from './skills-folder.js';

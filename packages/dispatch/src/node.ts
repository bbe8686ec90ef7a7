/**
 * @agentd/dispatch/node: `McpServer` over Node's stdio and `node:http` (the seed-002 contract's
 * behaviour on both). The main entry stays runtime-neutral. This file is the subpath's public API.
 */
export { type McpHttpOptions, mcpHttpListener } from './mcp-http.js';
export { type McpStdioOptions, serveMcpStdio } from './mcp-stdio.js';
export { type SkillsFolder, type SkillsFolderOptions, serveSkillsFolder } from './skills-folder.js';

/**
 * `@agentd/dispatch/schema`: JSON Schema checking as the Dispatcher does it for tool arguments, for
 * what a server checks itself (an elicitation's answer, a tool's structured output, a file it
 * reads). 2020-12 by default, draft-07 when the schema says so; compiled with ajv where code
 * generation works, interpreted where it does not (Cloudflare Workers), and flat schemas with no
 * package at all. Failures come back as argument issues, the same words a client reads in a tool
 * call's refusal.
 */
export { /** @public */ type ArgumentIssue, describeIssues } from './argument-issue.js';
export { compileSchema, type SchemaValidation } from './schema-compiler.js';

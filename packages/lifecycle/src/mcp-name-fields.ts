/** SEP-2243 / SEP-2663 routing: the body field each method's `Mcp-Name` header mirrors. */
export const MCP_NAME_FIELDS: Readonly<Record<string, string>> = Object.freeze({
  'tools/call': 'name',
  'prompts/get': 'name',
  'resources/read': 'uri',
  // Tasks extension: intermediaries route follow-ups to the instance holding the task.
  'tasks/get': 'taskId',
  'tasks/update': 'taskId',
  'tasks/cancel': 'taskId',
});

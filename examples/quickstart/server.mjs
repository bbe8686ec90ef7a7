import { McpServer, stdio } from '@agentd/dispatch';
import { z } from 'zod';

const server = new McpServer({ name: 'quickstart', version: '1.0.0' });
server.registerTool(
  'greet',
  { description: 'Greets someone by name', inputSchema: z.object({ name: z.string() }) },
  ({ name }) => `Hello, ${name}!`,
);
await server.connect(stdio());

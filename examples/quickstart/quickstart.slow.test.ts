/**
 * The root README's first server is this folder's server.mjs, verbatim, and `npm start` here
 * serves it on stdio to the official SDK client.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, describe, expect, it } from 'vitest';

const here = dirname(fileURLToPath(import.meta.url));
let client: Client | undefined;

afterEach(async () => {
  await client?.close();
  client = undefined;
});

describe('examples/quickstart', () => {
  it('is the root README first server, verbatim, in at most 10 lines', () => {
    const server = readFileSync(join(here, 'server.mjs'), 'utf8');
    const readme = readFileSync(join(here, '..', '..', 'README.md'), 'utf8');
    expect(readme).toContain(`\`\`\`js\n${server}\`\`\``);
    expect(server.trimEnd().split('\n').length).toBeLessThanOrEqual(10);
  });

  it('npm start serves greet on stdio to the official SDK client', async () => {
    client = new Client({ name: 'quickstart-test', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({ command: 'npm', args: ['start', '--silent'], cwd: here, stderr: 'inherit' }),
    );
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['greet']);
    expect(tools[0]?.inputSchema).toMatchObject({ type: 'object', properties: { name: { type: 'string' } } });
    expect(await client.callTool({ name: 'greet', arguments: { name: 'Ada' } })).toMatchObject({
      content: [{ type: 'text', text: 'Hello, Ada!' }],
    });
    const refused = await client.callTool({ name: 'greet', arguments: {} });
    expect(refused.isError).toBe(true);
  });
});

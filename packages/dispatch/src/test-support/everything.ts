/** Test helper: a small "everything"-style catalogue (conformance names) that the wire fixtures run against. */
import { silentLogger } from '@agentd/rpc-frame';
import { Dispatcher } from '../dispatcher.js';
import { ToolResult } from '../tool-result.js';

const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

export function everythingDispatcher(): Dispatcher {
  const d = new Dispatcher({
    logger: silentLogger,
    requestState: { key: 'fixture-key-fixture-key-fixture-key' },
  });
  d.registerTool({
    name: 'test_simple_text',
    description: 'Returns simple text',
    handler: () => 'This is a simple text response for testing.',
  });
  d.registerTool({
    name: 'test_image_content',
    description: 'Returns an image',
    handler: () => new ToolResult({ content: [{ type: 'image', data: PNG, mimeType: 'image/png' }] }),
  });
  d.registerTool({
    name: 'test_error_handling',
    description: 'Always fails',
    handler: () => {
      throw new Error('This tool intentionally returns an error for testing');
    },
  });
  d.registerTool({
    name: 'test_tool_with_progress',
    description: 'Reports progress',
    handler: (_args, ctx) => {
      ctx.progress(0, 100);
      ctx.progress(50, 100);
      ctx.progress(100, 100);
      return 'Progress complete';
    },
  });
  d.registerTool({
    name: 'add',
    description: 'Adds two numbers',
    inputSchema: {
      type: 'object',
      properties: { a: { type: 'number' }, b: { type: 'number' } },
      required: ['a', 'b'],
      additionalProperties: false,
    },
    outputSchema: { type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'] },
    handler: (args) => ({ sum: (args.a as number) + (args.b as number) }),
  });
  d.registerTool({
    name: 'test_missing_capability',
    description: 'Needs sampling',
    requiredClientCapabilities: { sampling: {} },
    handler: async (_args, ctx) => {
      const answer = await ctx.sample({
        messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }],
        maxTokens: 10,
      });
      return JSON.stringify(answer.content);
    },
  });
  d.registerTool({
    name: 'test_input_required_result_elicitation',
    description: 'Asks for a name',
    handler: async (_args, ctx) => {
      const answer = await ctx.elicit(
        {
          message: 'What is your name?',
          requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
        },
        { key: 'user_name' },
      );
      return `Hello, ${String((answer.content as { name?: string } | undefined)?.name)}!`;
    },
  });
  d.registerResource({
    uri: 'test://static-text',
    name: 'static-text',
    mimeType: 'text/plain',
    read: () => 'This is the content of the static text resource.',
  });
  d.registerResource({
    uri: 'test://static-binary',
    name: 'static-binary',
    mimeType: 'image/png',
    read: () => Buffer.from(PNG, 'base64'),
  });
  d.registerResourceTemplate({
    uriTemplate: 'test://template/{id}/data',
    name: 'template-data',
    mimeType: 'application/json',
    read: (_uri, vars) =>
      JSON.stringify({ id: vars.id, templateTest: true, data: `Data for ID: ${String(vars.id)}` }),
  });
  d.registerPrompt({
    name: 'test_simple_prompt',
    description: 'A simple prompt',
    get: () => 'This is a simple prompt for testing.',
  });
  d.registerPrompt({
    name: 'test_prompt_with_arguments',
    description: 'A prompt with arguments',
    arguments: [
      {
        name: 'arg1',
        description: 'First',
        required: true,
        complete: (v) => ['hello', 'help'].filter((x) => x.startsWith(v)),
      },
      { name: 'arg2', description: 'Second', required: true },
    ],
    get: (args) => `Prompt with arguments: arg1='${args.arg1}', arg2='${args.arg2}'`,
  });
  d.registerOperation({
    kind: 'query',
    id: 'servers',
    description: 'List servers',
    args: { type: 'object', properties: { up: { type: 'boolean' } } },
    outputType: 'Server[]',
    handler: (args) => ({ servers: args.up === false ? [] : ['alpha'] }),
  });
  return d;
}

/** Tools of both eras: content types, errors, progress and logging. */
import type { Dispatcher } from '@agentd/dispatch';
import { ToolResult } from '@agentd/dispatch';
import { sleep, TEST_AUDIO_BASE64, TEST_IMAGE_BASE64 } from './assets.js';

/** Keywords the suite checks survive tools/list unchanged ($schema, $defs, $anchor, composition, conditionals). */
const JSON_SCHEMA_2020_12_INPUT_SCHEMA = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  $defs: {
    address: {
      $anchor: 'addressDef',
      type: 'object',
      properties: { street: { type: 'string' }, city: { type: 'string' } },
    },
  },
  properties: {
    name: { type: 'string' },
    address: { $ref: '#/$defs/address' },
    contactMethod: { type: 'string', enum: ['phone', 'email'] },
    phone: { type: 'string' },
    email: { type: 'string' },
  },
  allOf: [{ anyOf: [{ required: ['phone'] }, { required: ['email'] }] }],
  if: { properties: { contactMethod: { const: 'phone' } }, required: ['contactMethod'] },
  // biome-ignore lint/suspicious/noThenProperty: `then` is a JSON Schema 2020-12 keyword here.
  then: { required: ['phone'] },
  else: { required: ['email'] },
  additionalProperties: false,
};

/** Parameters mirrored into `Mcp-Param-*` headers; the transport checks them against the body. */
export const CUSTOM_HEADERS_SCHEMA = {
  type: 'object',
  properties: {
    region: { type: 'string', description: 'Region, mirrored as Mcp-Param-Region', 'x-mcp-header': 'Region' },
    priority: {
      type: 'integer',
      description: 'Priority, mirrored as Mcp-Param-Priority',
      'x-mcp-header': 'Priority',
    },
  },
  required: ['region'],
};

const text = (value: string) => ({ type: 'text', text: value });

export function registerContentTools(dispatcher: Dispatcher): void {
  const simple = (name: string, description: string, content: Record<string, unknown>[]) =>
    dispatcher.registerTool({ name, description, handler: () => new ToolResult({ content }) });

  simple('test_simple_text', 'Tests simple text content response', [
    text('This is a simple text response for testing.'),
  ]);
  simple('test_image_content', 'Tests image content response', [
    { type: 'image', data: TEST_IMAGE_BASE64, mimeType: 'image/png' },
  ]);
  simple('test_audio_content', 'Tests audio content response', [
    { type: 'audio', data: TEST_AUDIO_BASE64, mimeType: 'audio/wav' },
  ]);
  simple('test_embedded_resource', 'Tests embedded resource content response', [
    {
      type: 'resource',
      resource: {
        uri: 'test://embedded-resource',
        mimeType: 'text/plain',
        text: 'This is an embedded resource content.',
      },
    },
  ]);
  simple(
    'test_multiple_content_types',
    'Tests response with multiple content types (text, image, resource)',
    [
      text('Multiple content types test:'),
      { type: 'image', data: TEST_IMAGE_BASE64, mimeType: 'image/png' },
      {
        type: 'resource',
        resource: {
          uri: 'test://mixed-content-resource',
          mimeType: 'application/json',
          text: JSON.stringify({ test: 'data', value: 123 }),
        },
      },
    ],
  );

  dispatcher.registerTool({
    name: 'json_schema_2020_12_tool',
    description: 'Tool with JSON Schema 2020-12 features for conformance testing (SEP-1613)',
    inputSchema: JSON_SCHEMA_2020_12_INPUT_SCHEMA,
    handler: (args) => `JSON Schema 2020-12 tool called with: ${JSON.stringify(args)}`,
  });

  dispatcher.registerTool({
    name: 'test_custom_headers',
    description: 'Echoes parameters that clients mirror as Mcp-Param-* headers (x-mcp-header)',
    inputSchema: CUSTOM_HEADERS_SCHEMA,
    handler: (args) => `region=${String(args.region)} priority=${String(args.priority ?? '')}`,
  });

  dispatcher.registerTool({
    name: 'test_error_handling',
    description: 'Tests error response handling',
    handler: () => {
      throw new Error('This tool intentionally returns an error for testing');
    },
  });

  dispatcher.registerTool({
    name: 'test_tool_with_progress',
    description: 'Tests tool that reports progress notifications',
    handler: async (_args, ctx) => {
      for (const step of [0, 50, 100]) {
        ctx.progress(step, 100, `Completed step ${step} of 100`);
        if (step < 100) await sleep(50);
      }
      return new ToolResult({ content: [text(String(ctx.request.progressToken ?? 0))] });
    },
  });

  dispatcher.registerTool({
    name: 'test_tool_with_logging',
    description: 'Tests tool that emits log messages during execution',
    handler: async (_args, ctx) => {
      const logger = 'conformance-test-server';
      ctx.log('info', 'Tool execution started', logger);
      await sleep(50);
      ctx.log('info', 'Tool processing data', logger);
      await sleep(50);
      ctx.log('info', 'Tool execution completed', logger);
      return new ToolResult({ content: [text('Tool with logging executed successfully')] });
    },
  });

  dispatcher.registerTool({
    name: 'test_logging_tool',
    description: 'Diagnostic logging validator tool: logs only when the request asked for a log level',
    handler: (_args, ctx) => {
      ctx.log('info', 'Diagnostic trace logging activated');
      return new ToolResult({ content: [text('Logging evaluated')] });
    },
  });

  dispatcher.registerTool({
    name: 'test_streaming_elicitation',
    description: 'Diagnostic tool validating response progress streams (no server-to-client requests)',
    handler: (_args, ctx) => {
      ctx.progress(50, 100);
      return new ToolResult({ content: [text('Streaming complete')] });
    },
  });
}

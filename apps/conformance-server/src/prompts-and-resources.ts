/** The suite's prompts, resources (static, binary, template, watched) and completions. */
import type { Dispatcher } from '@agentd/dispatch';
import { answer, TEST_IMAGE_BASE64 } from './assets.js';

export const WATCHED_URI = 'test://watched-resource';

const userText = (text: string) => ({ role: 'user' as const, content: { type: 'text', text } });

function prefixed(values: readonly string[]) {
  return (value: string) => values.filter((v) => v.startsWith(value));
}

export function registerPrompts(dispatcher: Dispatcher): void {
  dispatcher.registerPrompt({
    name: 'test_simple_prompt',
    title: 'Simple Test Prompt',
    description: 'A simple prompt without arguments',
    get: () => [userText('This is a simple prompt for testing.')],
  });
  dispatcher.registerPrompt({
    name: 'test_prompt_with_arguments',
    title: 'Prompt With Arguments',
    description: 'A prompt with required arguments',
    arguments: [
      {
        name: 'arg1',
        description: 'First test argument',
        required: true,
        complete: prefixed(['hello', 'help', 'world']),
      },
      {
        name: 'arg2',
        description: 'Second test argument',
        required: true,
        complete: prefixed(['world', 'wide']),
      },
    ],
    get: (args) => [userText(`Prompt with arguments: arg1='${args.arg1}', arg2='${args.arg2}'`)],
  });
  dispatcher.registerPrompt({
    name: 'test_prompt_with_embedded_resource',
    title: 'Prompt With Embedded Resource',
    description: 'A prompt that includes an embedded resource',
    arguments: [{ name: 'resourceUri', description: 'URI of the resource to embed', required: true }],
    get: (args) => [
      {
        role: 'user',
        content: {
          type: 'resource',
          resource: {
            uri: args.resourceUri ?? '',
            mimeType: 'text/plain',
            text: 'Embedded resource content for testing.',
          },
        },
      },
      userText('Please process the embedded resource above.'),
    ],
  });
  dispatcher.registerPrompt({
    name: 'test_prompt_with_image',
    title: 'Prompt With Image',
    description: 'A prompt that includes image content',
    get: () => [
      { role: 'user', content: { type: 'image', data: TEST_IMAGE_BASE64, mimeType: 'image/png' } },
      userText('Please analyze the image above.'),
    ],
  });
  dispatcher.registerPrompt({
    name: 'test_input_required_result_prompt',
    description: 'MRTR: prompt that requires elicitation input',
    get: async (_args, ctx) => {
      const result = await ctx.elicit(
        {
          message: 'What context should the prompt use?',
          requestedSchema: {
            type: 'object',
            properties: { context: { type: 'string' } },
            required: ['context'],
          },
        },
        { key: 'user_context' },
      );
      return [userText(`Prompt with context: ${answer(result, 'context')}`)];
    },
  });
}

export function registerResources(dispatcher: Dispatcher): void {
  dispatcher.registerResource({
    uri: 'test://static-text',
    name: 'static-text',
    title: 'Static Text Resource',
    description: 'A static text resource for testing',
    mimeType: 'text/plain',
    read: () => ({
      uri: 'test://static-text',
      mimeType: 'text/plain',
      text: 'This is the content of the static text resource.',
    }),
  });
  dispatcher.registerResource({
    uri: 'test://static-binary',
    name: 'static-binary',
    title: 'Static Binary Resource',
    description: 'A static binary resource (image) for testing',
    mimeType: 'image/png',
    read: () => ({ uri: 'test://static-binary', mimeType: 'image/png', blob: TEST_IMAGE_BASE64 }),
  });
  dispatcher.registerResourceTemplate({
    uriTemplate: 'test://template/{id}/data',
    name: 'template',
    title: 'Resource Template',
    description: 'A resource template with parameter substitution',
    mimeType: 'application/json',
    read: (uri, variables) => {
      const id = String(variables.id);
      return {
        uri,
        mimeType: 'application/json',
        text: JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}` }),
      };
    },
  });
  dispatcher.registerResource({
    uri: WATCHED_URI,
    name: 'watched-resource',
    title: 'Watched Resource',
    description: 'A resource that is updated every 3 seconds',
    mimeType: 'text/plain',
    read: () => ({ uri: WATCHED_URI, mimeType: 'text/plain', text: 'Watched resource content' }),
  });
}

/** Type tests (vitest typecheck): app tools infer arguments and results as registerTool does; `ui` is typed. */
import { describe, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { registerAppTool } from './app-tool.js';
import { Dispatcher } from './dispatcher.js';
import { McpServer } from './mcp-server.js';

const d = new Dispatcher();
const ui = { resourceUri: 'ui://demo/view.html' };

describe('registerAppTool types', () => {
  it('infers arguments from a JSON Schema literal and checks the return against outputSchema', () => {
    registerAppTool(d, {
      name: 'json',
      description: 'd',
      ui,
      inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
      outputSchema: { type: 'object', properties: { celsius: { type: 'number' } }, required: ['celsius'] },
      handler: (args) => {
        expectTypeOf(args.city).toEqualTypeOf<string>();
        return { celsius: 21 };
      },
    });
    registerAppTool(d, {
      name: 'bad_return',
      description: 'd',
      ui,
      outputSchema: { type: 'object', properties: { celsius: { type: 'number' } }, required: ['celsius'] },
      // @ts-expect-error celsius must be a number
      handler: () => ({ celsius: 'warm' }),
    });
  });

  it('infers arguments from a Standard Schema (zod)', () => {
    registerAppTool(d, {
      name: 'zod',
      description: 'd',
      ui: { resourceUri: 'ui://demo/view.html', visibility: ['app'] },
      inputSchema: z.object({ days: z.number().int() }),
      handler: (args) => {
        expectTypeOf(args.days).toEqualTypeOf<number>();
        return 'ok';
      },
    });
  });

  it('types ui: visibility is model | app, and onlyForExtension is decided for you', () => {
    registerAppTool(d, {
      name: 'vis',
      description: 'd',
      // @ts-expect-error 'agent' is not a visibility
      ui: { resourceUri: 'ui://demo/view.html', visibility: ['agent'] },
      handler: () => 'x',
    });
    registerAppTool(d, {
      name: 'ext',
      description: 'd',
      ui,
      // @ts-expect-error app tools get onlyForExtension from ui.visibility
      onlyForExtension: 'dev.agentd/x',
      handler: () => 'x',
    });
  });

  it('types McpServer.registerAppTool like registerTool, and the helper takes the server', () => {
    const server = new McpServer({ name: 'types', version: '1.0.0' });
    server.registerAppTool(
      'zod',
      { description: 'd', ui, inputSchema: z.object({ city: z.string() }) },
      (args) => {
        expectTypeOf(args.city).toEqualTypeOf<string>();
        return { city: args.city };
      },
    );
    registerAppTool(server, {
      name: 'helper',
      description: 'd',
      ui,
      inputSchema: z.object({ days: z.number() }),
      handler: (args) => {
        expectTypeOf(args.days).toEqualTypeOf<number>();
        return 'ok';
      },
    });
    // @ts-expect-error ui is required
    server.registerAppTool('no_ui', { description: 'd' }, () => 'x');
  });
});

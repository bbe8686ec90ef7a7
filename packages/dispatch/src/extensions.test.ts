/** The extension seam through the real server core: a server declares extensions, handlers read the client's, in both eras. */
import type { JsonObject } from '@agentd/rpc-frame';
import { silentLogger } from '@agentd/rpc-frame';
import { describe, expect, it } from 'vitest';
import { Dispatcher } from './dispatcher.js';
import { memoryClient } from './test-support/memory-core.js';

const DEMO = 'dev.agentd/demo';
const DEMO_CAPS = { extensions: { [DEMO]: { level: 2 } } };

function demoDispatcher(): Dispatcher {
  const dispatcher = new Dispatcher({ logger: silentLogger, extensions: { [DEMO]: { flavour: 'plain' } } });
  dispatcher.registerTool({
    name: 'settings',
    description: "Echoes the client's settings for the demo extension",
    handler: (_args, context) => ({ settings: context.extension(DEMO) ?? null }),
  });
  dispatcher.registerTool({
    name: 'needs_demo',
    description: 'Cannot work without the demo extension',
    requiredClientCapabilities: { extensions: { [DEMO]: {} } },
    handler: () => 'ok',
  });
  return dispatcher;
}

function structured(answer: JsonObject): unknown {
  return (answer.result as JsonObject).structuredContent;
}

describe('extension seam', () => {
  it('declares extensions in initialize and server/discover; tasks stay 2026-07-28 only', async () => {
    const dispatcher = demoDispatcher();
    dispatcher.registerTool({
      name: 'job',
      description: 'a task tool',
      task: 'optional',
      handler: () => 'done',
    });
    const ui = dispatcher.declareExtension('io.modelcontextprotocol/ui', { note: 'x' });
    const client = memoryClient(dispatcher);
    const init = await client.initialize();
    expect((init.capabilities as JsonObject).extensions).toEqual({
      [DEMO]: { flavour: 'plain' },
      'io.modelcontextprotocol/ui': { note: 'x' },
    });
    const discover = (await client.modern('server/discover')).result as JsonObject;
    expect((discover.capabilities as JsonObject).extensions).toEqual({
      [DEMO]: { flavour: 'plain' },
      'io.modelcontextprotocol/ui': { note: 'x' },
      'io.modelcontextprotocol/tasks': {},
    });
    expect(ui()).toBe(true);
    expect(ui()).toBe(false);
    const again = (await client.modern('server/discover')).result as JsonObject;
    expect((again.capabilities as JsonObject).extensions).not.toHaveProperty('io.modelcontextprotocol/ui');
  });

  it("a handler reads the client's settings: legacy from initialize, 2026-07-28 from each request", async () => {
    const legacy = memoryClient(demoDispatcher());
    await legacy.initialize(DEMO_CAPS);
    expect(structured(await legacy.legacy('tools/call', { name: 'settings' }))).toEqual({
      settings: { level: 2 },
    });
    const bare = memoryClient(demoDispatcher());
    await bare.initialize({});
    expect(structured(await bare.legacy('tools/call', { name: 'settings' }))).toEqual({ settings: null });

    const modern = memoryClient(demoDispatcher());
    expect(structured(await modern.modern('tools/call', { name: 'settings' }, DEMO_CAPS))).toEqual({
      settings: { level: 2 },
    });
    // The next request declares nothing: nothing carries over between 2026-07-28 requests.
    expect(structured(await modern.modern('tools/call', { name: 'settings' }, {}))).toEqual({
      settings: null,
    });
  });

  it('a tool requiring an extension: -32021 naming it (2026-07-28), an error result (legacy)', async () => {
    const modern = memoryClient(demoDispatcher());
    expect((await modern.modern('tools/call', { name: 'needs_demo' }, {})).error).toEqual({
      code: -32021,
      message: 'Missing required client capability',
      data: { requiredCapabilities: { extensions: { [DEMO]: {} } } },
    });
    expect((await modern.modern('tools/call', { name: 'needs_demo' }, DEMO_CAPS)).result).toMatchObject({
      content: [{ type: 'text', text: 'ok' }],
    });
    const legacy = memoryClient(demoDispatcher());
    await legacy.initialize({ extensions: { 'dev.agentd/other': {} } });
    expect((await legacy.legacy('tools/call', { name: 'needs_demo' })).result).toMatchObject({
      isError: true,
    });
  });

  it('refuses bad declarations with a LocalError', () => {
    const dispatcher = new Dispatcher({ logger: silentLogger });
    expect(() => dispatcher.declareExtension('ui')).toThrow(/vendor-prefix/);
    expect(() => dispatcher.declareExtension('io.modelcontextprotocol/tasks')).toThrow(/task/);
    expect(() => dispatcher.declareExtension(DEMO, [] as unknown as JsonObject)).toThrow(/JSON object/);
    expect(() => new Dispatcher({ extensions: { nope: {} } })).toThrow(
      expect.objectContaining({ code: 'invalid_definition' }),
    );
  });
});

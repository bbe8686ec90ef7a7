/**
 * MCP Apps end to end in a real headless Chromium (Debian's `/usr/bin/chromium`, driven by
 * playwright-core; nothing downloads a browser). The host page runs ext-apps' `AppBridge`; the
 * view is our `ui://` resource, a page running ext-apps' `App`, loaded into a sandboxed iframe
 * from `resources/read`. The view calls an app-only tool and reads a resource through the host,
 * and our server (the real core on a unix socket) answers, once per era: a 2025-06-18 session and
 * 2026-07-28 requests. Under CI=true a missing chromium fails; elsewhere it is one SKIPPED line.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { APP_MIME_TYPE, APPS_EXTENSION } from '@agentd/lifecycle/apps';
import { type JsonObject, silentLogger } from '@agentd/rpc-frame';
import { createServerCore } from '@agentd/server';
import {
  type Browser,
  browserTests,
  CHROMIUM_MISSING_IN_CI,
  type HostPage,
  hostView,
  launchChromium,
  type NdjsonClient,
  type SocketHarness,
  scriptPage,
  serveHostPage,
  socketHarness,
} from '@agentd/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerAppResource } from './app-resource.js';
import { registerAppTool } from './app-tool.js';
import { Dispatcher } from './dispatcher.js';

const browsers = browserTests('packages/dispatch MCP Apps browser test');

const VIEW = 'ui://weather/view.html';
const STATIONS = 'weather://stations';
const UI_CAPS = { extensions: { [APPS_EXTENSION]: { mimeTypes: [APP_MIME_TYPE] } } };
const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..');

/** The view: ext-apps' App; writes what the host answered into `<pre id=…>` for the test to read. */
const VIEW_SCRIPT = `
import { App, PostMessageTransport } from '@modelcontextprotocol/ext-apps';
const show = (id, value) => {
  const el = document.createElement('pre');
  el.id = id;
  el.textContent = JSON.stringify(value);
  document.body.append(el);
};
const app = new App({ name: 'weather-view', version: '1.0.0' });
app.ontoolresult = (result) => show('tool-result', result);
(async () => {
  try {
    await app.connect(new PostMessageTransport(window.parent, window.parent));
    show('called', await app.callServerTool({ name: 'refresh_weather', arguments: { city: 'Oslo' } }));
    show('read', await app.readServerResource({ uri: '${STATIONS}' }));
  } catch (error) {
    show('failed', String(error && error.stack || error));
  }
})();
`;

function weatherDispatcher(viewHtml: string): Dispatcher {
  const dispatcher = new Dispatcher({ logger: silentLogger });
  registerAppResource(dispatcher, {
    uri: VIEW,
    name: 'weather_view',
    html: viewHtml,
    ui: { prefersBorder: true, csp: { connectDomains: [] } },
  });
  dispatcher.registerResource({
    uri: STATIONS,
    name: 'stations',
    mimeType: 'application/json',
    read: (_uri, context) => JSON.stringify({ stations: ['Oslo', 'Bergen'], era: context.era }),
  });
  registerAppTool(dispatcher, {
    name: 'get_weather',
    description: 'Current weather for a city',
    inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    ui: { resourceUri: VIEW },
    handler: (args) => ({ city: args.city, celsius: 21 }),
  });
  registerAppTool(dispatcher, {
    name: 'refresh_weather',
    description: 'Refreshes the view (app only)',
    inputSchema: { type: 'object', properties: { city: { type: 'string' } } },
    ui: { resourceUri: VIEW, visibility: ['app'] },
    handler: (args, context) => ({
      refreshed: args.city,
      era: context.era,
      protocolVersion: context.protocolVersion,
      mimeTypes: context.extension(APPS_EXTENSION)?.mimeTypes ?? null,
    }),
  });
  return dispatcher;
}

/** The host's side of one era: a request function answering like the server did (result, or throw). */
type Ask = (method: string, params: JsonObject) => Promise<JsonObject>;

async function eraClient(peer: NdjsonClient, era: 'legacy' | 'modern'): Promise<Ask> {
  if (era === 'legacy') {
    await peer.initialize('2025-06-18', UI_CAPS);
    return (method, params) => peer.legacy(method, params) as Promise<JsonObject>;
  }
  let ids = 0;
  return async (method, params) => {
    const answer = await peer.modern(method, params, `m${++ids}`, UI_CAPS);
    if (answer.error !== undefined) throw new Error(JSON.stringify(answer.error));
    return answer.result as JsonObject;
  };
}

describe.runIf(browsers.run)('MCP Apps in headless Chromium (ext-apps AppBridge ↔ App)', () => {
  let harness: SocketHarness;
  let browser: Browser;
  let host: HostPage;

  beforeAll(async () => {
    const viewHtml = await scriptPage(VIEW_SCRIPT, packageDir, 'Weather');
    const core = createServerCore({
      handler: weatherDispatcher(viewHtml),
      serverInfo: { name: 'apps-browser-test', version: '1.0.0' },
      logger: silentLogger,
    });
    [harness, browser, host] = await Promise.all([socketHarness(core), launchChromium(), serveHostPage()]);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await host?.close();
    await harness?.close();
  });

  for (const era of ['legacy', 'modern'] as const) {
    it(`the view calls a tool and reads a resource through the host; our server answers (${era})`, async () => {
      const peer = await harness.connect('management');
      const ask = await eraClient(peer, era);
      // What a host does: list tools, call one as the model would, fetch the view it links.
      const tools = (await ask('tools/list', {})).tools as JsonObject[];
      const weather = tools.find((t) => t.name === 'get_weather') as JsonObject;
      const uri = ((weather._meta as JsonObject).ui as JsonObject).resourceUri as string;
      const toolResult = await ask('tools/call', { name: 'get_weather', arguments: { city: 'Oslo' } });
      const contents = (await ask('resources/read', { uri })).contents as JsonObject[];
      expect(contents[0]).toMatchObject({ uri: VIEW, mimeType: APP_MIME_TYPE });

      const {
        page,
        frame: view,
        forwarded,
      } = await hostView(
        browser,
        host,
        { html: contents[0]?.text as string, toolInput: { city: 'Oslo' }, toolResult },
        (method, params) => ask(method, params as JsonObject),
      );
      const read = async (id: string): Promise<JsonObject> => {
        const handle = await view.waitForSelector(`#${id}, #failed`, { timeout: 60_000 });
        const text = (await handle.textContent()) ?? '';
        if ((await handle.getAttribute('id')) === 'failed') throw new Error(`view failed: ${text}`);
        return JSON.parse(text) as JsonObject;
      };

      expect(await read('tool-result')).toMatchObject({ structuredContent: { city: 'Oslo', celsius: 21 } });
      const called = await read('called');
      expect(called.structuredContent).toEqual({
        refreshed: 'Oslo',
        era,
        protocolVersion: era === 'legacy' ? '2025-06-18' : '2026-07-28',
        mimeTypes: [APP_MIME_TYPE],
      });
      expect(called.content).toEqual([{ type: 'text', text: JSON.stringify(called.structuredContent) }]);
      const stations = (await read('read')).contents as JsonObject[];
      expect(stations).toEqual([
        {
          uri: STATIONS,
          mimeType: 'application/json',
          text: JSON.stringify({ stations: ['Oslo', 'Bergen'], era }),
        },
      ]);
      expect(forwarded).toEqual(['tools/call refresh_weather', `resources/read ${STATIONS}`]);
      await page.close();
    }, 120_000);
  }
});

describe.runIf(browsers.failInCi)('MCP Apps in headless Chromium', () => {
  it('needs chromium under CI', () => {
    expect.fail(CHROMIUM_MISSING_IN_CI);
  });
});

/**
 * MCP Apps end to end in a real headless Chromium (Debian's `/usr/bin/chromium`, driven by
 * playwright-core; nothing downloads a browser). The host page runs ext-apps' `AppBridge`; the
 * view is our `ui://` resource, a page running ext-apps' `App`, loaded into a sandboxed iframe
 * from `resources/read`. The view calls an app-only tool and reads a resource through the host,
 * and our server (the real core on a unix socket) answers, once per era: a 2025-06-18 session and
 * 2026-07-28 requests. Under CI=true a missing chromium fails; elsewhere it is one SKIPPED line.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { APP_MIME_TYPE, APPS_EXTENSION } from '@agentd/lifecycle';
import { type JsonObject, silentLogger } from '@agentd/rpc-frame';
import { createServerCore } from '@agentd/server';
import { type NdjsonClient, type SocketHarness, socketHarness } from '@agentd/test-support';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerAppResource } from './app-resource.js';
import { registerAppTool } from './app-tool.js';
import { Dispatcher } from './dispatcher.js';

const CHROMIUM = '/usr/bin/chromium';
const HAVE_CHROMIUM = existsSync(CHROMIUM);
const IN_CI = process.env.CI === 'true';
if (!HAVE_CHROMIUM && !IN_CI) {
  console.warn(
    `SKIPPED: packages/dispatch MCP Apps browser test: no ${CHROMIUM} (apt-get install -y chromium)`,
  );
}

const VIEW = 'ui://weather/view.html';
const STATIONS = 'weather://stations';
const UI_CAPS = { extensions: { [APPS_EXTENSION]: { mimeTypes: [APP_MIME_TYPE] } } };
const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..');

/** One IIFE of `entry` with ext-apps bundled in, safe to inline in a `<script>`. */
async function bundle(entry: string): Promise<string> {
  const out = await build({
    stdin: { contents: entry, resolveDir: packageDir, loader: 'js' },
    bundle: true,
    format: 'iife',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    write: false,
    logLevel: 'silent',
  });
  return (out.outputFiles[0]?.text ?? '').replace(/<\/script/gi, '<\\/script');
}

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

/** The host: ext-apps' AppBridge forwarding the view's requests to `window.hostRequest` (the test's MCP client). */
const HOST_SCRIPT = `
import { AppBridge, PostMessageTransport } from '@modelcontextprotocol/ext-apps/app-bridge';
window.startHost = async (html, toolInput, toolResult) => {
  const iframe = document.createElement('iframe');
  iframe.setAttribute('sandbox', 'allow-scripts');
  document.body.append(iframe);
  const bridge = new AppBridge(
    null,
    { name: 'agentd-test-host', version: '1.0.0' },
    { serverTools: {}, serverResources: {} },
    { hostContext: { theme: 'light', displayMode: 'inline' } },
  );
  bridge.oncalltool = (params) => window.hostRequest('tools/call', params);
  bridge.onreadresource = (params) => window.hostRequest('resources/read', params);
  bridge.oninitialized = () => {
    void bridge.sendToolInput({ arguments: toolInput });
    void bridge.sendToolResult(toolResult);
  };
  await bridge.connect(new PostMessageTransport(iframe.contentWindow, iframe.contentWindow));
  iframe.srcdoc = html;
};
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

describe.runIf(HAVE_CHROMIUM)('MCP Apps in headless Chromium (ext-apps AppBridge ↔ App)', () => {
  let harness: SocketHarness;
  let http: Server;
  let hostUrl: string;
  let profile: string;
  let context: import('playwright-core').BrowserContext;

  beforeAll(async () => {
    const [hostBundle, viewBundle] = await Promise.all([bundle(HOST_SCRIPT), bundle(VIEW_SCRIPT)]);
    const viewHtml = `<!doctype html><html><head><meta charset="utf-8"><title>Weather</title></head><body><script>${viewBundle}</script></body></html>`;
    const core = createServerCore({
      handler: weatherDispatcher(viewHtml),
      serverInfo: { name: 'apps-browser-test', version: '1.0.0' },
      logger: silentLogger,
    });
    harness = await socketHarness(core);
    const hostPage = `<!doctype html><html><head><meta charset="utf-8"><title>Host</title></head><body><script>${hostBundle}</script></body></html>`;
    http = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(hostPage);
    });
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    hostUrl = `http://127.0.0.1:${(http.address() as AddressInfo).port}/`;
    profile = await mkdtemp(join(tmpdir(), 'agentd-chromium-'));
    const { chromium } = await import('playwright-core');
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
      timeout: 60_000,
    });
  }, 120_000);

  afterAll(async () => {
    await context?.close();
    await new Promise((resolve) => http?.close(resolve));
    await harness?.close();
    if (profile) await rm(profile, { recursive: true, force: true });
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

      const page = await context.newPage();
      const forwarded: string[] = [];
      await page.exposeFunction('hostRequest', (method: string, params: JsonObject) => {
        forwarded.push(`${method} ${String(params.name ?? params.uri)}`);
        return ask(method, params);
      });
      await page.goto(hostUrl);
      await page.evaluate(
        ([html, result]) =>
          (
            globalThis as unknown as { startHost(h: string, i: unknown, r: unknown): Promise<void> }
          ).startHost(html as string, { city: 'Oslo' }, result),
        [contents[0]?.text, toolResult] as const,
      );
      const view = page.frames().find((frame) => frame !== page.mainFrame());
      if (view === undefined) throw new Error('the host did not create the view iframe');
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

describe.runIf(!HAVE_CHROMIUM && IN_CI)('MCP Apps in headless Chromium', () => {
  it('needs chromium under CI', () => {
    expect.fail(`CI=true but ${CHROMIUM} is missing: .ci/run must apt-get install chromium`);
  });
});

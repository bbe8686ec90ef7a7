/**
 * The example's hand-written view against the real host bridge: ext-apps' `AppBridge` in a host
 * page in headless Chromium (Debian's `/usr/bin/chromium` through playwright-core) renders
 * `ui://forecast/view.html` from the example server (a child process); the view's Refresh button
 * calls the app-only tool through the host. Legacy: the official SDK client over stdio;
 * 2026-07-28: NDJSON requests. Under CI=true a missing chromium fails, else one SKIPPED line.
 */
import {
  type Browser,
  browserTests,
  CHROMIUM_MISSING_IN_CI,
  type HostPage,
  hostView,
  launchChromium,
  serveHostPage,
} from '@agentd/test-support';
import { RESOURCE_MIME_TYPE } from '@modelcontextprotocol/ext-apps';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Json, modernPeer, SERVER, startChild, UI_CAPS } from './test-support/child-peers.js';

const browsers = browserTests('examples/mcp-app view browser test');

type Ask = (method: string, params: Json) => Promise<Json>;

describe.runIf(browsers.run)('examples/mcp-app view under ext-apps AppBridge in Chromium', () => {
  let browser: Browser;
  let host: HostPage;
  const stops: (() => Promise<void>)[] = [];

  beforeAll(async () => {
    [browser, host] = await Promise.all([launchChromium(), serveHostPage()]);
  }, 120_000);

  afterAll(async () => {
    for (const stop of stops) await stop();
    await browser?.close();
    await host?.close();
  });

  async function legacyAsk(): Promise<Ask> {
    const client = new Client({ name: 'example-host', version: '1.0.0' }, { capabilities: UI_CAPS });
    await client.connect(
      new StdioClientTransport({ command: process.execPath, args: [SERVER], stderr: 'pipe' }),
    );
    stops.push(() => client.close());
    return async (method, params) => {
      if (method === 'tools/call') return (await client.callTool(params as never)) as Json;
      if (method === 'resources/read') return (await client.readResource(params as never)) as Json;
      throw new Error(`this host does not forward ${method}`);
    };
  }

  function modernAsk(): Ask {
    const { child, stop } = startChild(process.execPath, [SERVER]);
    stops.push(stop);
    const send = modernPeer(child);
    return async (method, params) => {
      const answer = await send(method, params);
      if (answer.error !== undefined) throw new Error(JSON.stringify(answer.error));
      return answer.result as Json;
    };
  }

  for (const era of ['legacy', 'modern'] as const) {
    it(`renders the tool result and refreshes through the app-only tool (${era})`, async () => {
      const ask = era === 'legacy' ? await legacyAsk() : modernAsk();
      const result = await ask('tools/call', { name: 'show_forecast', arguments: { city: 'Oslo' } });
      const view = (await ask('resources/read', { uri: 'ui://forecast/view.html' })).contents as Json[];
      expect(view[0]?.mimeType).toBe(RESOURCE_MIME_TYPE);
      const { page, frame, forwarded } = await hostView(
        browser,
        host,
        { html: view[0]?.text as string, toolResult: result },
        (method, params) => ask(method, params as Json),
      );
      await frame.locator('#city', { hasText: 'Forecast for Oslo' }).waitFor({ timeout: 60_000 });
      expect(await frame.locator('#days li').count()).toBe(3);
      const before = await frame.locator('#updated').textContent();
      await frame.locator('#refresh:not([disabled])').click({ timeout: 60_000 });
      await expect
        .poll(() => frame.locator('#updated').textContent(), { timeout: 60_000, interval: 100 })
        .not.toBe(before);
      expect(forwarded).toEqual(['tools/call refresh_forecast']);
      await page.close();
    }, 120_000);
  }
});

describe.runIf(browsers.failInCi)('examples/mcp-app view in Chromium', () => {
  it('needs chromium under CI', () => {
    expect.fail(CHROMIUM_MISSING_IN_CI);
  });
});

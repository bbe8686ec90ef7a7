/**
 * The runs page as an MCP App: `ui://agentd/runs` (text/html;profile=mcp-app, no external origin)
 * linked from the classic spawn and status tools, rendered by ext-apps' real `AppBridge` host in
 * headless Chromium. The view reaches agentd only through the host: it shows the run the spawn
 * returned, streams its lines, and cancels it with a tool call the host forwards.
 */
import { APP_MIME_TYPE } from '@agentd/lifecycle/apps';
import {
  type Browser,
  browserTests,
  CHROMIUM_MISSING_IN_CI,
  type HostPage,
  hostView,
  type Json,
  launchChromium,
  NdjsonClient,
  serveHostPage,
} from '@agentd/test-support';
import { RESOURCE_MIME_TYPE } from '@modelcontextprotocol/ext-apps';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Agentd, startAgentd } from './support/agentd-process.js';
import { screenshot } from './support/screenshot.js';

const browsers = browserTests('apps/agentd MCP App browser test');

const WAIT = { timeout: 30_000 };
const TICKER = {
  mode: 'plain',
  command: '/bin/sh',
  args: ['-c', 'i=0; while [ $i -lt 600 ]; do echo "{instruction} $i"; i=$((i+1)); sleep 0.1; done'],
};

describe('the runs page as an MCP App (classic exposure)', () => {
  let agentd: Agentd;
  let client: NdjsonClient;

  beforeAll(async () => {
    agentd = await startAgentd({ args: ['--exposure', 'classic'], config: { agents: { ticker: TICKER } } });
    client = await NdjsonClient.connect(agentd.socket);
  }, 60_000);

  afterAll(async () => {
    client?.end();
    await agentd?.stop();
  });

  it('lists ui://agentd/runs with a strict CSP and links it from the spawn and status tools only', async () => {
    const listed = (await client.modernResult('resources/list')).resources as Json[];
    const entry = listed.find((r) => r.uri === 'ui://agentd/runs');
    // agentd's constant is the official SDK's.
    expect(APP_MIME_TYPE).toBe(RESOURCE_MIME_TYPE);
    expect(entry).toMatchObject({ mimeType: RESOURCE_MIME_TYPE });
    const read = (await client.modernResult('resources/read', { uri: 'ui://agentd/runs' }))
      .contents as Json[];
    expect(read[0]?.mimeType).toBe(APP_MIME_TYPE);
    expect(read[0]?._meta).toMatchObject({
      ui: { csp: { connectDomains: [], resourceDomains: [], frameDomains: [], baseUriDomains: [] } },
    });
    expect(String(read[0]?.text)).toMatch(/^<!doctype html>/);
    const tools = (await client.modernResult('tools/list')).tools as Json[];
    const linked = tools
      .filter(
        (t) => ((t._meta as Json | undefined)?.ui as Json | undefined)?.resourceUri === 'ui://agentd/runs',
      )
      .map((t) => t.name);
    expect(linked.sort()).toEqual(['command_subagent.spawn', 'query_subagent.status']);
  });

  describe.runIf(browsers.run)('inside ext-apps AppBridge in Chromium', () => {
    let browser: Browser;
    let host: HostPage;

    beforeAll(async () => {
      [browser, host] = await Promise.all([launchChromium(), serveHostPage()]);
    }, 120_000);

    afterAll(async () => {
      await browser?.close();
      await host?.close();
    });

    it('shows the spawned run streaming and cancels it through the host', async () => {
      const result = await client.modernResult('tools/call', {
        name: 'command_subagent.spawn',
        arguments: { agent: 'ticker', instruction: 'app', async: true },
      });
      const handle = (result.structuredContent as Json).handle as string;
      const html = (
        (await client.modernResult('resources/read', { uri: 'ui://agentd/runs' })).contents as Json[]
      )[0]?.text;
      const { page, frame, forwarded } = await hostView(
        browser,
        host,
        { html: html as string, toolResult: result, theme: 'dark' },
        (method, params) => client.modernResult(method, params as Json),
      );
      const row = frame.locator(`li[data-run-handle="${handle}"]`);
      await row.waitFor(WAIT);
      await frame.locator('[data-run-output] span', { hasText: /^app 3$/ }).waitFor(WAIT);
      // The host's theme reached the view.
      expect(await frame.evaluate('document.documentElement.dataset.theme')).toBe('dark');
      await screenshot(page, 'app-streaming');
      await frame.locator('button[data-action="cancel"]').click(WAIT);
      await expect.poll(() => row.getAttribute('data-run-status'), WAIT).toBe('cancelled');
      await screenshot(page, 'app-cancelled');
      // Everything went through the host, and the daemon agrees.
      expect(forwarded).toContain('tools/call command_subagent.cancel');
      expect(forwarded.every((f) => f.startsWith('tools/call ') || f.startsWith('resources/read '))).toBe(
        true,
      );
      const status = await client.modernResult('tools/call', {
        name: 'query_subagent.status',
        arguments: { handle },
      });
      expect(status.structuredContent).toMatchObject({ state: 'cancelled', terminal: true });
      await page.close();
    }, 120_000);
  });
});

describe.runIf(browsers.failInCi)('the MCP App in Chromium', () => {
  it('needs chromium under CI', () => {
    expect.fail(CHROMIUM_MISSING_IN_CI);
  });
});

/**
 * The MCP App `ui://agentd/runs` inside ext-apps' real `AppBridge` host in headless Chromium,
 * handed an ACP run that asks before writing a file (the SDK-written test agent, permissions
 * `default: "ask"`): the view shows the prompt, Approve goes through the host as a
 * `subagent.approve` tool call, the decision and the completed tool call with its diff show, the
 * file exists. Everything the view does goes through the host. Under CI=true a missing chromium
 * fails, else one SKIPPED line.
 */
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
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
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Agentd, startAgentd } from './support/agentd-process.js';
import { screenshot } from './support/screenshot.js';

const browsers = browserTests('apps/agentd MCP App permission prompt browser test');

const WAIT = { timeout: 30_000 };
const AGENT = fileURLToPath(new URL('../src/supervisor/test-support/acp-test-agent.mjs', import.meta.url));
const WORK = mkdtempSync(join(tmpdir(), 'agentd-ui-app-perm-'));
const ACP = {
  mode: 'acp',
  command: process.execPath,
  args: [AGENT],
  cwd: WORK,
  allowFileSystem: true,
  permissions: { default: 'ask' },
};

describe.runIf(browsers.run)('the MCP App answering a permission prompt in Chromium', () => {
  let agentd: Agentd;
  let client: NdjsonClient;
  let browser: Browser;
  let host: HostPage;

  beforeAll(async () => {
    [agentd, browser, host] = await Promise.all([
      startAgentd({ args: ['--exposure', 'classic'], config: { agents: { acp: ACP } } }),
      launchChromium(),
      serveHostPage(),
    ]);
    client = await NdjsonClient.connect(agentd.socket);
  }, 120_000);

  afterAll(async () => {
    client?.end();
    await browser?.close();
    await host?.close();
    await agentd?.stop();
  });

  it('shows the prompt of the run it was handed, approves it through the host, then shows the result', async () => {
    const file = join(WORK, 'app.txt');
    const result = await client.modernResult('tools/call', {
      name: 'command_subagent.spawn',
      arguments: { agent: 'acp', instruction: `tool ${file} from the app`, async: true },
    });
    const handle = (result.structuredContent as Json).handle as string;
    const html = (
      (await client.modernResult('resources/read', { uri: 'ui://agentd/runs' })).contents as Json[]
    )[0]?.text;
    const { page, frame, forwarded } = await hostView(
      browser,
      host,
      { html: html as string, toolResult: result },
      (method, params) => client.modernResult(method, params as Json),
    );
    await frame.locator(`li[data-run-handle="${handle}"]`).waitFor(WAIT);
    const prompt = frame.locator('#run-events .prompt');
    await prompt.waitFor({ state: 'visible', ...WAIT });
    expect(await prompt.locator('.ask').textContent()).toBe(`The agent asks to run: Write ${file}`);
    expect(existsSync(file)).toBe(false);
    await screenshot(page, 'app-permission-pending');
    await prompt.locator('button[data-action="approve"][data-answer="approve"]').click(WAIT);
    await frame.locator('#run-events .decision', { hasText: 'allowed once by operator' }).waitFor(WAIT);
    await frame.locator('#run-events details.tool[data-status="completed"]').waitFor(WAIT);
    expect(await frame.locator('#run-events figure.diff span.add').allTextContents()).toEqual([
      '+ from the app',
    ]);
    expect(readFileSync(file, 'utf8')).toBe('from the app');
    await screenshot(page, 'app-permission-approved');
    expect(forwarded).toContain('tools/call command_subagent.approve');
    expect(forwarded.every((f) => f.startsWith('tools/call ') || f.startsWith('resources/read '))).toBe(true);
    await page.close();
  }, 120_000);
});

describe.runIf(browsers.failInCi)('the MCP App answering a permission prompt in Chromium', () => {
  it('needs chromium under CI', () => {
    expect.fail(CHROMIUM_MISSING_IN_CI);
  });
});

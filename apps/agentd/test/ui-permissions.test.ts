/**
 * Watching and answering a real agent from the /ui/ dashboard in headless Chromium: a real daemon
 * runs the SDK-written ACP test agent (acp-test-agent.mjs) with permissions `default: "ask"`. The
 * operator's page shows the pending prompt, Approve answers it through `subagent.approve`, the
 * decision shows, the tool call's row ends completed with its output, the file exists and the
 * diff shows as a diff; Deny leaves no file and a failed row. The tool's title and diff carry
 * markup and bidi controls: they stay inert text. Under CI=true a missing chromium fails, else one
 * SKIPPED line.
 */
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, browserTests, CHROMIUM_MISSING_IN_CI, launchChromium } from '@agentd/test-support';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Agentd, runCli, startAgentd } from './support/agentd-process.js';
import { screenshot } from './support/screenshot.js';

const browsers = browserTests('apps/agentd dashboard permission prompts browser tests');

const TOKEN = 'ui-permissions-token-0123456789abcdef';
const WAIT = { timeout: 30_000 };
const AGENT = fileURLToPath(new URL('../src/supervisor/test-support/acp-test-agent.mjs', import.meta.url));
const WORK = mkdtempSync(join(tmpdir(), 'agentd-ui-perm-'));
const ACP = {
  mode: 'acp',
  command: process.execPath,
  args: [AGENT],
  cwd: WORK,
  allowFileSystem: true,
  permissions: { default: 'ask' },
};
/** A file name (no spaces: the agent splits words) that is an HTML injection and a bidi trick at once (the agent's title is `Write <path>`). */
const HOSTILE = '<img/src=x/onerror=window.pwned=1>\u202Etxt.exe';
const SHOWN = '<img/src=x/onerror=window.pwned=1><U+202E>txt.exe';

const dashboardUrl = (agentd: Agentd) => (agentd.httpUrl as string).replace(/\/mcp$/, '/ui/');

describe.runIf(browsers.run)('permission prompts on the /ui/ dashboard in Chromium', () => {
  let agentd: Agentd;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    [agentd, browser] = await Promise.all([
      startAgentd({
        http: true,
        config: { auth: { bearerTokens: [{ name: 'ui', token: TOKEN }] }, agents: { acp: ACP } },
      }),
      launchChromium(),
    ]);
    page = await browser.context.newPage();
    page.on('pageerror', (e) => console.log('page error:', e.message));
    await page.goto(dashboardUrl(agentd));
    const form = page.locator('form[data-action="token"]');
    await form.locator('input[name="token"]').fill(TOKEN);
    await form.locator('input[name="token"]').press('Enter');
    await page.locator('form[data-action="spawn"]').waitFor({ state: 'visible', ...WAIT });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await agentd?.stop();
  });

  /** Spawns `tool PATH CONTENT` on the ACP agent from the CLI and selects its run on the page. */
  const spawnTool = async (file: string, content: string): Promise<string> => {
    const started = await runCli([
      'spawn',
      '--json',
      '--async',
      '--socket',
      agentd.socket,
      '--agent',
      'acp',
      `tool ${join(WORK, file)} ${content}`,
    ]);
    expect(started.code).toBe(0);
    const { handle } = JSON.parse(started.stdout) as { handle: string };
    const row = page.locator(`li[data-run-handle="${handle}"]`);
    await row.waitFor({ state: 'visible', ...WAIT });
    await row.locator('button').click();
    return handle;
  };

  it('shows the pending prompt, approves it, then shows the decision and the completed tool call', async () => {
    const file = `ok-${HOSTILE}.txt`;
    const handle = await spawnTool(file, 'hello there');
    const prompt = page.locator('#run-events .prompt');
    await prompt.waitFor({ state: 'visible', ...WAIT });
    expect(await prompt.locator('.ask').textContent()).toBe(
      `The agent asks to run: Write ${join(WORK, `ok-${SHOWN}.txt`)}`,
    );
    const requestId = await prompt.getAttribute('data-request-id');
    expect(requestId).toBeTruthy();
    // The agent is really waiting: nothing written yet.
    expect(existsSync(join(WORK, file))).toBe(false);
    await screenshot(page, 'permissions-pending');
    await prompt.locator('button[data-action="approve"][data-answer="approve"]').click();
    await page
      .locator(`#run-events .decision[data-request-id="${requestId}"]`, {
        hasText: 'allowed once by operator',
      })
      .waitFor(WAIT);
    const row = page.locator('#run-events details.tool[data-status="completed"]');
    await row.waitFor(WAIT);
    await row.locator('summary').click();
    expect(await row.locator('.facts').textContent()).toContain('written');
    expect(await page.locator('#run-events .prompt').count()).toBe(0);
    expect(readFileSync(join(WORK, file), 'utf8')).toBe('hello there');
    // The diff shows as a diff: the new file's line added.
    const added = page.locator('#run-events figure.diff span.add');
    expect(await added.allTextContents()).toEqual(['+ hello there']);
    expect(await page.locator('#run-events figure.diff figcaption').textContent()).toBe(
      join(WORK, `ok-${SHOWN}.txt`),
    );
    // The agent's reply flows as text, and the daemon agrees the request was answered.
    await page.locator('#run-events .message', { hasText: 'wrote' }).waitFor(WAIT);
    const status = await runCli(['status', '--json', '--socket', agentd.socket, handle]);
    expect(JSON.parse(status.stdout).pendingPermissions ?? []).toEqual([]);
    await screenshot(page, 'permissions-approved');
  }, 120_000);

  it('keeps the hostile title and path inert: markup is text, bidi controls shown', async () => {
    expect(await page.locator('#run-events img').count()).toBe(0);
    expect(await page.evaluate('window.pwned')).toBeUndefined();
    const text = (await page.locator('#run-events').textContent()) ?? '';
    expect(text).toContain(SHOWN);
    expect(text).not.toMatch(/[\u202a-\u202e\u2066-\u2069]/);
  }, 60_000);

  it('denies from the page: no file, the tool call failed', async () => {
    const handle = await spawnTool('denied.txt', 'nope');
    const prompt = page.locator('#run-events .prompt');
    await prompt.waitFor({ state: 'visible', ...WAIT });
    await prompt.locator('button[data-action="approve"][data-answer="deny"]').click();
    await page.locator('#run-events .decision', { hasText: 'denied by operator' }).waitFor(WAIT);
    await page.locator('#run-events details.tool[data-status="failed"]').waitFor(WAIT);
    await page.locator('#run-events .message', { hasText: 'rejected' }).waitFor(WAIT);
    expect(existsSync(join(WORK, 'denied.txt'))).toBe(false);
    expect((await runCli(['cancel', '--socket', agentd.socket, handle])).code).toBe(0);
  }, 120_000);
});

describe.runIf(browsers.failInCi)('permission prompts on the /ui/ dashboard in Chromium', () => {
  it('needs chromium under CI', () => {
    expect.fail(CHROMIUM_MISSING_IN_CI);
  });
});

/**
 * The dashboard at /ui/ in headless Chromium against the real daemon: with a bearer token it asks
 * for the token and signs in, lists a run spawned from the CLI, streams its lines, cancels it from
 * the page, spawns one from the page; an anonymous loopback peer (restricted) gets no runs and no
 * controls. Under CI=true a missing chromium fails, else one SKIPPED line.
 */
import { NdjsonClient } from '@agentd/test-support';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Agentd, runCli, startAgentd } from './support/agentd-process.js';
import {
  type Browser,
  CHROMIUM,
  HAVE_CHROMIUM,
  IN_CI,
  launchChromium,
  screenshot,
} from './support/chromium.js';

if (!HAVE_CHROMIUM && !IN_CI)
  console.warn(`SKIPPED: apps/agentd dashboard browser tests: no ${CHROMIUM} (apt-get install -y chromium)`);

const TOKEN = 'ui-dashboard-token-0123456789abcdef';
const WAIT = { timeout: 30_000 };
/** A plain agent that streams a numbered line every 100 ms (a stderr line every tenth) for a minute. */
const TICKER = {
  mode: 'plain',
  command: '/bin/sh',
  args: [
    '-c',
    'i=0; while [ $i -lt 600 ]; do echo "{instruction} $i"; if [ $((i % 10)) -eq 9 ]; then echo "tick $i" >&2; fi; i=$((i+1)); sleep 0.1; done',
  ],
};

const dashboardUrl = (agentd: Agentd) => (agentd.httpUrl as string).replace(/\/mcp$/, '/ui/');

describe.runIf(HAVE_CHROMIUM)('the /ui/ dashboard in Chromium', () => {
  let operator: Agentd;
  let anonymous: Agentd;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    [operator, anonymous, browser] = await Promise.all([
      startAgentd({
        http: true,
        config: { auth: { bearerTokens: [{ name: 'ui', token: TOKEN }] }, agents: { ticker: TICKER } },
      }),
      startAgentd({ http: true, config: { agents: { ticker: TICKER } } }),
      launchChromium(),
    ]);
    page = await browser.context.newPage();
    page.on('pageerror', (e) => console.log('page error:', e.message));
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await Promise.all([operator?.stop(), anonymous?.stop()]);
  });

  it('asks for the token, keeps it for the tab, and signs in', async () => {
    expect(operator.logs.find((l) => l.msg === 'dashboard')?.url).toBe(dashboardUrl(operator));
    await page.goto(dashboardUrl(operator));
    const form = page.locator('form[data-action="token"]');
    await form.waitFor({ state: 'visible', ...WAIT });
    expect(await page.locator('form[data-action="spawn"]').isHidden()).toBe(true);
    await form.locator('input[name="token"]').fill('not-the-token');
    await form.locator('button[type="submit"]').click();
    await page.locator('#notice', { hasText: 'refused' }).waitFor({ state: 'visible', ...WAIT });
    await form.locator('input[name="token"]').fill(TOKEN);
    await form.locator('input[name="token"]').press('Enter');
    await page.locator('form[data-action="spawn"]').waitFor({ state: 'visible', ...WAIT });
    expect(await form.isHidden()).toBe(true);
    await page.locator('#daemon', { hasText: 'ready' }).waitFor(WAIT);
    expect(await page.evaluate("sessionStorage.getItem('agentd.token')")).toBe(TOKEN);
    expect(await page.evaluate('localStorage.length')).toBe(0);
    await screenshot(page, 'dashboard-signed-in');
  }, 120_000);

  it('lists a run spawned from the CLI, streams its lines, and cancels it from the page', async () => {
    const started = await runCli([
      'spawn',
      '--json',
      '--async',
      '--socket',
      operator.socket,
      '--agent',
      'ticker',
      'line',
    ]);
    expect(started.code).toBe(0);
    const { handle } = JSON.parse(started.stdout) as { handle: string };
    // Pushed by subscriptions/listen: no reload, no user action.
    const row = page.locator(`li[data-run-handle="${handle}"]`);
    await row.waitFor({ state: 'visible', ...WAIT });
    await expect.poll(() => row.getAttribute('data-run-status'), WAIT).toBe('running');
    await row.locator('button').focus();
    await page.keyboard.press('Enter');
    const output = page.locator('[data-run-output]');
    await output.locator('span', { hasText: /^line 2$/ }).waitFor(WAIT);
    // Later lines arrive while we watch, and stderr lines are marked.
    await output.locator('span', { hasText: /^line 15$/ }).waitFor(WAIT);
    await output.locator('span.stderr', { hasText: 'tick 9' }).waitFor(WAIT);
    await screenshot(page, 'dashboard-streaming');
    await page.locator('button[data-action="cancel"]').click();
    await expect.poll(() => row.getAttribute('data-run-status'), WAIT).toBe('cancelled');
    await page.locator('#result-title', { hasText: 'cancelled' }).waitFor(WAIT);
    expect(await page.locator('button[data-action="cancel"]').isHidden()).toBe(true);
    // The daemon agrees: the run really ended cancelled.
    const status = await runCli(['status', '--json', '--socket', operator.socket, handle]);
    expect(JSON.parse(status.stdout)).toMatchObject({ state: 'cancelled', terminal: true });
    await screenshot(page, 'dashboard-cancelled');
  }, 120_000);

  it('spawns a run from the page and shows it streaming', async () => {
    const form = page.locator('form[data-action="spawn"]');
    await form.locator('select[name="agent"]').selectOption('ticker');
    await form.locator('input[name="instruction"]').fill('from-page');
    await form.locator('button[type="submit"]').click();
    const output = page.locator('[data-run-output]');
    await output.locator('span', { hasText: /^from-page 3$/ }).waitFor(WAIT);
    const handle = await page.locator('#detail').getAttribute('data-run-handle');
    expect(handle).toBeTruthy();
    await page.locator(`li[data-run-handle="${handle}"][data-run-status="running"]`).waitFor(WAIT);
    await page.locator('button[data-action="cancel"]').click();
    await page.locator(`li[data-run-handle="${handle}"][data-run-status="cancelled"]`).waitFor(WAIT);
  }, 120_000);

  it('shows the daemon pausing and resuming', async () => {
    expect((await runCli(['pause', '--socket', operator.socket])).code).toBe(0);
    await page.locator('#daemon', { hasText: 'paused' }).waitFor(WAIT);
    expect((await runCli(['resume', '--socket', operator.socket])).code).toBe(0);
    await expect.poll(() => page.locator('#daemon').textContent(), WAIT).not.toContain('paused');
    expect(await page.locator('#daemon').textContent()).toMatch(/running \d+\/4 · warm \d+\/8/);
  }, 60_000);

  it('is fine at 360 px and in the dark scheme', async () => {
    await page.setViewportSize({ width: 360, height: 740 });
    await page.emulateMedia({ colorScheme: 'dark' });
    const overflow = await page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth');
    expect(overflow).toBeLessThanOrEqual(0);
    const background = await page.evaluate('getComputedStyle(document.body).backgroundColor');
    expect(background).toBe('rgb(21, 23, 26)');
    await screenshot(page, 'dashboard-360-dark');
    await page.emulateMedia({ colorScheme: 'light' });
    await page.setViewportSize({ width: 1100, height: 800 });
  }, 60_000);

  it('gives an anonymous loopback peer (restricted) the daemon status and no runs or controls', async () => {
    const client = await NdjsonClient.connect(anonymous.socket);
    try {
      // A run exists on this daemon; a restricted peer must still not see it.
      const spawned = await client.modernResult('tools/call', {
        name: 'execute',
        arguments: {
          code: "return await agentd.subagent.spawn({ agent: 'ticker', instruction: 'hidden', async: true });",
        },
      });
      const handle = (spawned.structuredContent as { result: { handle: string } }).result.handle;
      const restricted = await browser.context.newPage();
      await restricted.goto(dashboardUrl(anonymous));
      await restricted.locator('#daemon', { hasText: 'running 1' }).waitFor(WAIT);
      await restricted.locator('#notice', { hasText: 'restricted peer' }).waitFor(WAIT);
      expect(await restricted.locator('form[data-action="token"]').isHidden()).toBe(true);
      expect(await restricted.locator('form[data-action="spawn"]').isHidden()).toBe(true);
      expect(await restricted.locator('button[data-action="cancel"]').isHidden()).toBe(true);
      expect(await restricted.locator('li[data-run-handle]').count()).toBe(0);
      expect(await restricted.content()).not.toContain(handle);
      await screenshot(restricted, 'dashboard-restricted');
      await restricted.close();
    } finally {
      client.end();
    }
  }, 120_000);
});

describe.runIf(!HAVE_CHROMIUM && IN_CI)('the /ui/ dashboard in Chromium', () => {
  it('needs chromium under CI', () => {
    expect.fail(`CI=true but ${CHROMIUM} is missing: .ci/run must apt-get install chromium`);
  });
});

/**
 * The dashboard at /ui/ in headless Chromium against the real daemon: with a bearer token it asks
 * for the token and signs in, lists a run spawned from the CLI, streams its lines, cancels it from
 * the page, spawns one from the page; the selected run's lines stream in over `subagent.attach`
 * while it runs (no polling), and selecting another run aborts that stream; an anonymous loopback
 * peer (restricted) gets no runs and no controls. Under CI=true a missing chromium fails, else one
 * SKIPPED line.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type Browser,
  browserTests,
  CHROMIUM_MISSING_IN_CI,
  launchChromium,
  NdjsonClient,
} from '@agentd/test-support';
import type { Page, Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type Agentd, runCli, startAgentd } from './support/agentd-process.js';
import { screenshot } from './support/screenshot.js';

const browsers = browserTests('apps/agentd dashboard browser tests');

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

/** Gate files the GATED agent waits for: the test decides when each run may finish. */
const GATES = mkdtempSync(join(tmpdir(), 'agentd-ui-gates-'));
/** A plain agent that prints a stdout and a stderr line, then waits for the gate named by its instruction. */
const GATED = {
  mode: 'plain',
  command: '/bin/sh',
  args: [
    '-c',
    `echo "{instruction} first"; echo "{instruction} warming" >&2; while [ ! -e '${GATES}/{instruction}' ]; do sleep 0.05; done; echo "{instruction} second"`,
  ],
};
const openGate = (name: string) => writeFileSync(join(GATES, name), '');
/** A plain agent whose one line carries a bidi override and an escape sequence. */
const TRICK = {
  mode: 'plain',
  command: '/bin/sh',
  args: ['-c', String.raw`printf 'bidi \342\200\256txet\342\200\254 esc \033[31mred\n'`],
};

const dashboardUrl = (agentd: Agentd) => (agentd.httpUrl as string).replace(/\/mcp$/, '/ui/');

describe.runIf(browsers.run)('the /ui/ dashboard in Chromium', () => {
  let operator: Agentd;
  let anonymous: Agentd;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    [operator, anonymous, browser] = await Promise.all([
      startAgentd({
        http: true,
        config: {
          auth: { bearerTokens: [{ name: 'ui', token: TOKEN }] },
          agents: { ticker: TICKER, gated: GATED, trick: TRICK },
        },
      }),
      startAgentd({ http: true, config: { agents: { ticker: TICKER } } }),
      launchChromium(),
    ]);
    page = await browser.context.newPage();
    page.on('pageerror', (e) => console.log('page error:', e.message));
    page.on('request', (request) => requests.push(request));
    page.on('requestfailed', (request) => failures.set(request, request.failure()?.errorText ?? ''));
  }, 120_000);

  /** Every request the page made, and the ones that failed (with the browser's reason). */
  const requests: Request[] = [];
  const failures = new Map<Request, string>();
  /** The page's `subagent.attach` calls for a run (in either exposure the body names the operation and handle). */
  const attachesOf = (handle: string) =>
    requests.filter(
      (r) => (r.postData() ?? '').includes('subagent.attach') && r.postData()?.includes(handle),
    );
  const readsOf = (handle: string) =>
    requests.filter((r) => (r.postData() ?? '').includes(`agent://subagent/${handle}`));

  const spawnGated = async (name: string): Promise<string> => {
    const started = await runCli([
      'spawn',
      '--json',
      '--async',
      '--socket',
      operator.socket,
      '--agent',
      'gated',
      name,
    ]);
    expect(started.code).toBe(0);
    return (JSON.parse(started.stdout) as { handle: string }).handle;
  };
  const selectRun = async (handle: string) => {
    const row = page.locator(`li[data-run-handle="${handle}"]`);
    await row.waitFor({ state: 'visible', ...WAIT });
    await row.locator('button').click();
    return row;
  };

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

  it("shows a finished run's output read by handle, with bidi controls and escapes shown, not applied", async () => {
    const spawned = await runCli(['spawn', '--json', '--socket', operator.socket, '--agent', 'trick', 'x']);
    expect(spawned.code).toBe(0);
    const { handle } = JSON.parse(spawned.stdout) as { handle: string };
    await selectRun(handle);
    // The inventory lists summaries: the output comes from reading the run by its handle.
    const shown = 'bidi <U+202E>txet<U+202C> esc ^[[31mred';
    await page.locator('#result-text', { hasText: shown }).waitFor(WAIT);
    await page.locator('[data-run-output] span', { hasText: shown }).waitFor(WAIT);
    expect(readsOf(handle).length).toBeGreaterThan(0);
    const text = await page.locator('#result-text').textContent();
    expect(text).not.toMatch(/[\u202a-\u202e\u2066-\u2069]/);
  }, 120_000);

  it("streams the selected run's lines over subagent.attach as they arrive, while it still runs", async () => {
    const handle = await spawnGated('alpha');
    const row = await selectRun(handle);
    const output = page.locator('[data-run-output]');
    await output.locator('span', { hasText: /^alpha first$/ }).waitFor(WAIT);
    await output.locator('span.stderr', { hasText: /^alpha warming$/ }).waitFor(WAIT);
    // The run cannot end before its gate opens: these lines arrived mid-run.
    expect(await row.getAttribute('data-run-status')).toBe('running');
    // They came on the attach call's SSE response, not from polling the run's resource.
    const [attach] = attachesOf(handle);
    expect(attach).toBeDefined();
    expect((await attach?.response())?.headers()['content-type']).toMatch(/^text\/event-stream/);
    expect(readsOf(handle)).toHaveLength(0);
    await screenshot(page, 'dashboard-attached');
    openGate('alpha');
    await output.locator('span', { hasText: /^alpha second$/ }).waitFor(WAIT);
    await expect.poll(() => row.getAttribute('data-run-status'), WAIT).toBe('succeeded');
    // The stream ended with the result; each line shows once.
    expect(await output.locator('span', { hasText: /^alpha first$/ }).count()).toBe(1);
    expect(await output.locator('span', { hasText: /^alpha second$/ }).count()).toBe(1);
    expect(attachesOf(handle)).toHaveLength(1);
    expect(readsOf(handle)).toHaveLength(0);
  }, 120_000);

  it('aborts the stream of a run when another run is selected; the run goes on', async () => {
    const [left, next] = [await spawnGated('left'), await spawnGated('next')];
    await selectRun(left);
    const output = page.locator('[data-run-output]');
    await output.locator('span', { hasText: /^left first$/ }).waitFor(WAIT);
    const [leftAttach] = attachesOf(left);
    expect(leftAttach).toBeDefined();
    expect(failures.has(leftAttach as Request)).toBe(false);
    await selectRun(next);
    await output.locator('span', { hasText: /^next first$/ }).waitFor(WAIT);
    await vi.waitFor(() => expect(failures.get(leftAttach as Request)).toBe('net::ERR_ABORTED'), {
      timeout: 10_000,
      interval: 20,
    });
    expect(await output.locator('span', { hasText: /^left first$/ }).count()).toBe(0);
    // Leaving never touches the run.
    const status = await runCli(['status', '--json', '--socket', operator.socket, left]);
    expect(JSON.parse(status.stdout)).toMatchObject({ state: 'running' });
    openGate('next');
    openGate('left');
    await page.locator(`li[data-run-handle="${next}"][data-run-status="succeeded"]`).waitFor(WAIT);
    await page.locator(`li[data-run-handle="${left}"][data-run-status="succeeded"]`).waitFor(WAIT);
    await output.locator('span', { hasText: /^next second$/ }).waitFor(WAIT);
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

describe.runIf(browsers.failInCi)('the /ui/ dashboard in Chromium', () => {
  it('needs chromium under CI', () => {
    expect.fail(CHROMIUM_MISSING_IN_CI);
  });
});

/**
 * The History view of the /ui/ dashboard in headless Chromium against real daemons. Runs finish,
 * the daemon stops and a new one starts on the same state directory: the History view lists the
 * stored runs a page at a time, filters them by state and agent, a word of one run's output finds
 * just that run (and so does its run id), and opening it shows its whole log (1200 lines, not a
 * 50-line tail) read by handle. A restricted MCP App session lists only its own runs; an
 * anonymous browser none. Under CI=true a missing chromium fails, else one SKIPPED line.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
  toolValue,
} from '@agentd/test-support';
import type { Frame, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Agentd, startAgentd } from './support/agentd-process.js';
import { startMixedPeers } from './support/mixed-peers.js';
import { screenshot } from './support/screenshot.js';

const browsers = browserTests('apps/agentd dashboard history browser tests');

const TOKEN = 'ui-history-token-0123456789abcdef';
const WAIT = { timeout: 30_000 };
/** Prints 1200 numbered lines (two pages of agent://logs), each starting with its instruction, on stdout. */
const LINES = {
  mode: 'plain',
  command: '/bin/sh',
  args: ['-c', 'i=1; while [ $i -le 1200 ]; do echo "{instruction} line $i"; i=$((i+1)); done'],
};
const QUICK = { mode: 'plain', command: '/bin/sh', args: ['-c', 'echo "{instruction}"'] };
const FAILS = { mode: 'plain', command: '/bin/sh', args: ['-c', 'echo "{instruction} oops" >&2; exit 3'] };
const AGENTS = { lines: LINES, quick: QUICK, fails: FAILS };

const dashboardUrl = (url: string) => url.replace(/\/mcp$/, '/ui/');
const spawnRun = async (client: NdjsonClient, agent: string, instruction: string): Promise<Json> =>
  toolValue(
    await client.modernResult('tools/call', {
      name: 'command_subagent.spawn',
      arguments: { agent, instruction },
    }),
  );

/** The handles of the History rows shown, top to bottom. */
const historyHandles = (view: Page | Frame) =>
  view
    .locator('#history-runs li')
    .evaluateAll((lis) => lis.map((li) => li.getAttribute('data-history-handle')));

describe.runIf(browsers.run)('the History view in Chromium', () => {
  const state = mkdtempSync(join(tmpdir(), 'agentd-ui-history-'));
  let agentd: Agentd;
  let browser: Browser;
  let page: Page;
  const runs: Record<string, Json> = {};
  const logReads: string[] = [];

  beforeAll(async () => {
    const config = { auth: { bearerTokens: [{ name: 'ui', token: TOKEN }] }, agents: AGENTS };
    const start = () =>
      startAgentd({ http: true, args: ['--exposure', 'classic'], config, env: { XDG_STATE_HOME: state } });
    const first = await start();
    const client = await NdjsonClient.connect(first.socket);
    runs.quokka = await spawnRun(client, 'lines', 'quokka');
    runs.wombat = await spawnRun(client, 'lines', 'wombat');
    runs.failed = await spawnRun(client, 'fails', 'numbat');
    // Enough runs for a second page (the page asks for 50 at a time).
    for (let i = 0; i < 52; i++) await spawnRun(client, 'quick', `filler-${i}`);
    client.end();
    await first.stop();
    // A new daemon on the same state directory: nothing of the first one's memory is left.
    [agentd, browser] = await Promise.all([start(), launchChromium()]);
    page = await browser.context.newPage();
    page.on('pageerror', (e) => console.log('page error:', e.message));
    page.on('request', (request) => {
      const body = request.postData() ?? '';
      if (body.includes('agent://logs/')) logReads.push(body);
    });
    await page.goto(dashboardUrl(String(agentd.httpUrl)));
    const form = page.locator('form[data-action="token"]');
    await form.locator('input[name="token"]').fill(TOKEN);
    await form.locator('input[name="token"]').press('Enter');
    await page.locator('#daemon', { hasText: 'ready' }).waitFor(WAIT);
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await agentd?.stop();
  });

  it('lists the runs of the daemon before the restart, newest first, a page at a time', async () => {
    expect(runs.quokka).toMatchObject({ state: 'succeeded' });
    expect(runs.failed).toMatchObject({ state: 'failed' });
    await page.locator('button[data-view="history"]').click();
    const rows = page.locator('#history-runs li');
    await expect.poll(() => rows.count(), WAIT).toBe(50);
    expect(await page.locator('#live').isHidden()).toBe(true);
    // Newest first: the last filler started last.
    const first = rows.first();
    expect(await first.locator('.agent').textContent()).toBe('quick');
    expect(await first.locator('.state').textContent()).toBe('succeeded');
    expect(await first.getAttribute('data-run-status')).toBe('succeeded');
    await page.locator('button[data-action="more"]').click();
    await expect.poll(() => rows.count(), WAIT).toBe(55);
    expect(await page.locator('button[data-action="more"]').isHidden()).toBe(true);
    const handles = await historyHandles(page);
    expect(new Set(handles).size).toBe(55);
    // The three named runs were the first started: they end the list, oldest last.
    expect(handles.slice(-3)).toEqual([runs.failed?.handle, runs.wombat?.handle, runs.quokka?.handle]);
    await screenshot(page, 'history-list');
  }, 120_000);

  it('filters by state and agent, and finds a run by a word of its output or by its run id', async () => {
    const form = page.locator('form[data-action="history"]');
    await form.locator('select[name="state"]').selectOption('failed');
    await form.locator('button[type="submit"]').click();
    await expect.poll(() => historyHandles(page), WAIT).toEqual([runs.failed?.handle]);
    await form.locator('select[name="state"]').selectOption('');
    await form.locator('input[name="agent"]').fill('lines');
    await form.locator('button[type="submit"]').click();
    await expect.poll(() => historyHandles(page), WAIT).toEqual([runs.wombat?.handle, runs.quokka?.handle]);
    await form.locator('input[name="agent"]').fill('');
    await form.locator('input[name="text"]').fill('quokka');
    await form.locator('input[name="text"]').press('Enter');
    await expect.poll(() => historyHandles(page), WAIT).toEqual([runs.quokka?.handle]);
    await form.locator('input[name="text"]').fill(String(runs.wombat?.runId));
    await form.locator('input[name="text"]').press('Enter');
    await expect.poll(() => historyHandles(page), WAIT).toEqual([runs.wombat?.handle]);
    await form.locator('input[name="text"]').fill('no-run-says-this');
    await form.locator('input[name="text"]').press('Enter');
    await page.locator('#history-status', { hasText: 'No stored runs match.' }).waitFor(WAIT);
  }, 120_000);

  it('opens a stored run by its handle and shows its whole log, every line of it', async () => {
    const form = page.locator('form[data-action="history"]');
    await form.locator('input[name="text"]').fill('quokka');
    await form.locator('input[name="text"]').press('Enter');
    const row = page.locator(`li[data-history-handle="${String(runs.quokka?.handle)}"]`);
    await row.locator('button').click(WAIT);
    await page.locator('#detail-title', { hasText: `Run ${String(runs.quokka?.runId)}` }).waitFor(WAIT);
    const lines = page.locator('[data-run-output] span');
    await expect.poll(() => lines.count(), WAIT).toBe(1200);
    expect(await lines.first().textContent()).toBe('quokka line 1');
    expect(await lines.last().textContent()).toBe('quokka line 1200');
    expect(await row.getAttribute('aria-current')).toBe('true');
    expect(await page.locator('#detail-meta').textContent()).toContain('succeeded');
    // Read from the store by handle (agent://logs), not from a tail.
    const reads = logReads.filter((body) => body.includes(`agent://logs/${String(runs.quokka?.handle)}`));
    // Page after page: the second starts after the first one's last event.
    expect(reads.some((body) => body.includes('?after='))).toBe(true);
    await screenshot(page, 'history-whole-log');
    // A failed run shows its stderr lines and why it failed.
    await form.locator('input[name="text"]').fill('');
    await form.locator('select[name="state"]').selectOption('failed');
    await form.locator('button[type="submit"]').click();
    await page.locator(`li[data-history-handle="${String(runs.failed?.handle)}"] button`).click(WAIT);
    await page.locator('[data-run-output] span.stderr', { hasText: 'numbat oops' }).waitFor(WAIT);
    await page.locator('#result-title', { hasText: 'failed' }).waitFor(WAIT);
  }, 120_000);
});

describe.runIf(browsers.run)('the History view of restricted sessions', () => {
  let browser: Browser;
  let host: HostPage;

  beforeAll(async () => {
    [browser, host] = await Promise.all([launchChromium(), serveHostPage()]);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await host?.close();
  });

  it('an MCP App session lists only its own runs and opens them; an anonymous browser lists none', async () => {
    const peers = await startMixedPeers({ exposure: 'classic', agents: AGENTS });
    const operator = await NdjsonClient.connect(peers.socket);
    try {
      await peers.stdio.initialize();
      const spawned = await peers.stdio.legacy('tools/call', {
        name: 'command_subagent.spawn',
        arguments: { agent: 'lines', instruction: 'mine' },
      });
      const mine = toolValue(spawned);
      const theirs = await spawnRun(operator, 'lines', 'theirs');
      expect(theirs).toMatchObject({ state: 'succeeded' });
      const html = (
        (await peers.stdio.legacy('resources/read', { uri: 'ui://agentd/runs' })).contents as Json[]
      )[0]?.text;
      // The App talks through the host to the restricted stdio peer that spawned `mine`.
      const { page, frame } = await hostView(
        browser,
        host,
        { html: html as string, toolResult: spawned },
        (method, params) => peers.stdio.legacy(method, params as Json),
      );
      await frame.locator('button[data-view="history"]').click(WAIT);
      await expect.poll(() => historyHandles(frame), WAIT).toEqual([mine.handle]);
      await frame.locator(`li[data-history-handle="${String(mine.handle)}"] button`).click();
      await expect.poll(() => frame.locator('[data-run-output] span').count(), WAIT).toBe(1200);
      expect(await frame.locator('[data-run-output] span').last().textContent()).toBe('mine line 1200');
      await screenshot(page, 'history-app-restricted');
      await page.close();

      // An anonymous loopback browser is a restricted peer of its own: none of these runs are its.
      const anonymous = await browser.context.newPage();
      await anonymous.goto(dashboardUrl(peers.httpUrl));
      await anonymous.locator('button[data-view="history"]').click(WAIT);
      await anonymous.locator('#history-status', { hasText: 'No stored runs match.' }).waitFor(WAIT);
      expect(await anonymous.locator('#history-runs li').count()).toBe(0);
      await anonymous.close();
    } finally {
      operator.end();
      await peers.stop();
    }
  }, 120_000);
});

describe.runIf(browsers.failInCi)('the History view in Chromium', () => {
  it('needs chromium under CI', () => {
    expect.fail(CHROMIUM_MISSING_IN_CI);
  });
});

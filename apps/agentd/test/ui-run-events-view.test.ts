/**
 * The run events view (ui/src/run-events-view.ts) drawn in headless Chromium from a status and
 * its events, no daemon: tool calls as collapsible rows with their facts, the plan as a checklist,
 * diffs as coloured old/new lines, usage, prompts with Approve / Always / Deny; agent text stays
 * inert (markup is text, bidi and control characters shown), rows a reader opened stay open, and
 * nothing is redrawn when nothing changed. Under CI=true a missing chromium fails, else one SKIPPED line.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  type Browser,
  browserTests,
  CHROMIUM_MISSING_IN_CI,
  launchChromium,
  scriptPage,
} from '@agentd/test-support';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { screenshot } from './support/screenshot.js';

const browsers = browserTests('apps/agentd run events view browser tests');
const UI_SRC = fileURLToPath(new URL('../ui/src/', import.meta.url));
const CSS = readFileSync(fileURLToPath(new URL('../ui/page.css', import.meta.url)), 'utf8');

/** `window.draw(status, events, options)`: the model of those, drawn into #root; answers whether it drew. */
const ENTRY = `
import { entriesOf } from './run-events.js';
import { runModel } from './run-model.js';
import { renderRunEvents } from './run-events-view.js';
const root = document.createElement('div');
root.id = 'root';
document.body.append(root);
window.draw = (status, options) =>
  renderRunEvents(root, runModel(status, entriesOf(status) ?? []), {
    canApprove: options.canApprove,
    answering: new Set(options.answering ?? []),
  });
`;

const HOSTILE = '<img src=x onerror="window.pwned=1">\u202Egnp.exe\u202C \u001b]0;title\u0007';
const SHOWN = '<img src=x onerror="window.pwned=1"><U+202E>gnp.exe<U+202C> ^[]0;title^G';

/** What the assertions read of page elements (this file's types have no DOM). */
type Data = { textContent: string | null; dataset: Record<string, string | undefined> };
type Styles = { getComputedStyle(el: unknown): { color: string } };
const isOpen = (d: unknown) => (d as { open: boolean }).open;

/** The control and bidi characters left raw in `text` (tab and newline are text). */
const rawControls = (text: string) =>
  [...text].filter((c) => {
    const n = c.codePointAt(0) as number;
    return (
      (n < 0x20 && n !== 0x09 && n !== 0x0a) ||
      (n >= 0x7f && n <= 0x9f) ||
      (n >= 0x202a && n <= 0x202e) ||
      (n >= 0x2066 && n <= 0x2069)
    );
  });

const at = '2026-01-01T00:00:00.000Z';
const call = (status: string, extra: object = {}) => ({
  id: 'call-1',
  title: `Write ${HOSTILE}`,
  kind: 'edit',
  status,
  input: '{"path":"/w/a.txt"}',
  locations: ['/w/a.txt'],
  ...extra,
});
const request = {
  requestId: 'req-1',
  toolCall: call('pending'),
  options: [
    { optionId: 'allow', name: 'Allow once', kind: 'allow_once' },
    { optionId: 'always', name: 'Always', kind: 'allow_always' },
    { optionId: 'reject', name: 'Reject', kind: 'reject_once' },
  ],
};
const EVENTS = [
  { type: 'thought', text: `pondering ${HOSTILE}` },
  {
    type: 'plan',
    entries: [
      { content: 'read', status: 'completed' },
      { content: 'write', status: 'in_progress' },
      { content: 'test', status: 'pending' },
    ],
  },
  { type: 'message', text: 'I will ' },
  { type: 'message', text: `write ${HOSTILE}` },
  { type: 'tool_call', toolCall: call('pending') },
  {
    type: 'diff',
    path: '/w/a.txt',
    oldText: 'one\ntwo\nthree\n',
    newText: `one\n2 ${HOSTILE}\nthree\nfour\n`,
  },
  { type: 'permission_request', request },
].map((e, seq) => ({ seq, at, ...e }));
const STATUS = {
  handle: 'h',
  runId: 'r',
  mode: 'acp',
  usage: { inputTokens: 1200, outputTokens: 34, cacheReadTokens: 5, cacheWriteTokens: 0, costUsd: 0.25 },
  pendingPermissions: [{ ...request, since: at }],
  events: EVENTS,
};

describe.runIf(browsers.run)('the run events view in Chromium', () => {
  let browser: Browser;
  let page: Page;
  const draw = (status: unknown, options: { canApprove: boolean; answering?: string[] }) =>
    page.evaluate(([s, o]) => (globalThis as unknown as { draw: (...a: unknown[]) => boolean }).draw(s, o), [
      status,
      options,
    ] as const);

  beforeAll(async () => {
    browser = await launchChromium();
    page = await browser.context.newPage();
    page.on('pageerror', (e) => console.log('page error:', e.message));
    await page.setContent(await scriptPage(ENTRY, UI_SRC, 'run events'));
    await page.addStyleTag({ content: CSS });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
  });

  it('draws a tool call as a collapsible row, the plan as a checklist, the diff as old and new lines, usage', async () => {
    expect(await draw(STATUS, { canApprove: true })).toBe(true);
    const row = page.locator('details.tool[data-tool-call-id="call-1"]');
    expect(await row.getAttribute('data-status')).toBe('pending');
    expect(await row.evaluate(isOpen)).toBe(false);
    expect(await row.locator('summary .status').textContent()).toBe('pending');
    expect(await row.locator('summary .kind').textContent()).toBe('edit');
    await row.locator('summary').click();
    expect(await row.locator('.facts').textContent()).toContain('/w/a.txt');
    await row.locator('summary').click();
    expect(await row.evaluate(isOpen)).toBe(false);
    const plan = page.locator('.plan .checklist li');
    expect(
      await plan.evaluateAll((items: unknown[]) => items.map((i) => (i as Data).dataset.status)),
    ).toEqual(['completed', 'in_progress', 'pending']);
    const diff = page.locator('figure.diff[data-path="/w/a.txt"] pre span');
    expect(await diff.evaluateAll((spans) => spans.map((s) => `${s.className}|${s.textContent}`))).toEqual([
      'ctx|  one',
      'del|- two',
      `add|+ 2 ${SHOWN}`,
      'ctx|  three',
      'add|+ four',
    ]);
    const colour = (cls: string) =>
      page
        .locator(`figure.diff span.${cls}`)
        .first()
        .evaluate((el: unknown) => (globalThis as unknown as Styles).getComputedStyle(el).color);
    expect(new Set([await colour('add'), await colour('del'), await colour('ctx')]).size).toBe(3);
    expect(await page.locator('[data-run-usage]').textContent()).toBe(
      'usage: 1,200 in · 34 out · 5 cached · $0.2500',
    );
    expect(await page.locator('.timeline .message').textContent()).toBe(`I will write ${SHOWN}`);
    // A thought is dimmed and folded.
    const thought = page.locator('details.thought');
    expect(await thought.evaluate(isOpen)).toBe(false);
    await screenshot(page, 'run-events-view');
  }, 60_000);

  it('keeps agent text inert: markup stays text, bidi and control characters are shown', async () => {
    expect(await page.locator('#root img').count()).toBe(0);
    expect(await page.evaluate('window.pwned')).toBeUndefined();
    expect(await page.locator('details.tool summary .title').textContent()).toBe(`Write ${SHOWN}`);
    const text = (await page.locator('#root').textContent()) ?? '';
    expect(rawControls(text)).toEqual([]);
    expect(text).toContain('<U+202E>');
  }, 60_000);

  it('offers Approve, Always and Deny for a pending prompt, only to a peer that may answer', async () => {
    const buttons = page.locator('.prompt[data-request-id="req-1"] button[data-action="approve"]');
    expect(
      await buttons.evaluateAll((bs: unknown[]) =>
        bs.map(
          (b) => `${(b as Data).textContent}:${(b as Data).dataset.optionId ?? (b as Data).dataset.decision}`,
        ),
      ),
    ).toEqual(['Approve:allow', 'Always:always', 'Deny:reject']);
    await draw(STATUS, { canApprove: true, answering: ['req-1'] });
    expect(
      await buttons.evaluateAll((bs: unknown[]) => bs.every((b) => (b as { disabled: boolean }).disabled)),
    ).toBe(true);
    await draw(STATUS, { canApprove: false });
    expect(await page.locator('.prompt[data-request-id="req-1"]').count()).toBe(1);
    expect(await buttons.count()).toBe(0);
    // An agent that offers no reject option still gets a plain deny.
    await draw({ ...STATUS, pendingPermissions: [{ ...request, options: [] }] }, { canApprove: true });
    expect(
      await buttons.evaluateAll((bs: unknown[]) =>
        bs.map((b) => `${(b as Data).textContent}:${(b as Data).dataset.decision}`),
      ),
    ).toEqual(['Deny:deny']);
  }, 60_000);

  it('shows the decision and the completed row once they come; an opened row stays open; same input draws nothing', async () => {
    await draw(STATUS, { canApprove: true });
    await page.locator('details.tool summary').click();
    expect(await page.locator('details.tool').evaluate(isOpen)).toBe(true);
    const after = {
      ...STATUS,
      pendingPermissions: undefined,
      events: [
        ...EVENTS,
        {
          seq: 7,
          at,
          type: 'permission_decision',
          requestId: 'req-1',
          decision: { outcome: 'selected', optionId: 'allow', kind: 'allow_once', by: 'operator' },
        },
        { seq: 8, at, type: 'tool_call', toolCall: call('completed', { output: 'written' }) },
        { seq: 9, at, type: 'turn_end', turn: 1, stopReason: 'end_turn', text: '' },
      ],
    };
    expect(await draw(after, { canApprove: true })).toBe(true);
    expect(await page.locator('.prompt').count()).toBe(0);
    expect(await page.locator('.decision[data-request-id="req-1"]').textContent()).toBe(
      `Write ${SHOWN}: allowed once by operator`,
    );
    const row = page.locator('details.tool[data-tool-call-id="call-1"]');
    expect(await page.locator('details.tool').count()).toBe(1);
    expect(await row.getAttribute('data-status')).toBe('completed');
    expect(await row.evaluate(isOpen)).toBe(true);
    expect(await row.locator('.facts').textContent()).toContain('written');
    expect(await page.locator('.timeline .turn').textContent()).toBe('turn 1 ended (end_turn)');
    expect(await draw(after, { canApprove: true })).toBe(false);
    await screenshot(page, 'run-events-view-decided');
  }, 60_000);

  it('draws nothing (and hides itself) for a status without events', async () => {
    expect(await draw({ handle: 'h', runId: 'r', mode: 'plain' }, { canApprove: true })).toBe(true);
    expect(await page.locator('#root').evaluate((r: unknown) => (r as { hidden: boolean }).hidden)).toBe(
      true,
    );
  }, 60_000);
});

describe.runIf(browsers.failInCi)('the run events view in Chromium', () => {
  it('needs chromium under CI', () => {
    expect.fail(CHROMIUM_MISSING_IN_CI);
  });
});

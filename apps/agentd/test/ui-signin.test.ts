/**
 * The dashboard signed in for the machine's own user, in headless Chromium against the real
 * daemon (no bearer tokens configured): `agentd ui --open` hands the sign-in URL to the opener,
 * the page trades it for a tab session, drops it from the address bar, survives a reload, shows
 * and cancels a run; a page on another loopback port can neither read the session nor use it
 * (CORS, exact Origin, Host), and `agentd ui --rotate` ends the session. Under CI=true a missing
 * chromium fails, else one SKIPPED line.
 */
import { chmodSync, existsSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser, browserTests, CHROMIUM_MISSING_IN_CI, launchChromium } from '@agentd/test-support';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Agentd, cleanEnv, runCli, startAgentd } from './support/agentd-process.js';

const browsers = browserTests('apps/agentd dashboard sign-in browser tests');
const WAIT = { timeout: 30_000 };
/** A plain agent that prints a line every 100 ms for a minute: cancelled long before it ends. */
const TICKER = {
  mode: 'plain',
  command: '/bin/sh',
  args: ['-c', 'i=0; while [ $i -lt 600 ]; do echo "{instruction} $i"; i=$((i+1)); sleep 0.1; done'],
};

/** One modern-era request, as the page sends it, with whatever Origin/Host/bearer the case needs. */
function mcpPost(
  endpoint: string,
  method: string,
  params: Record<string, unknown>,
  headers: Record<string, string>,
): Promise<{ status: number | undefined; body: string }> {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method,
    params: {
      ...params,
      _meta: {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientCapabilities': {},
        'io.modelcontextprotocol/clientInfo': { name: 'test', version: '1' },
      },
    },
  });
  const name =
    typeof params.uri === 'string' ? params.uri : typeof params.name === 'string' ? params.name : undefined;
  return new Promise((resolve, reject) => {
    const req = request(
      endpoint,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2026-07-28',
          'mcp-method': method,
          ...(name === undefined ? {} : { 'mcp-name': name }),
          ...headers,
        },
      },
      (res) => {
        let text = '';
        res.on('data', (c: Buffer) => {
          text += c.toString();
        });
        res.on('end', () => resolve({ status: res.statusCode, body: text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe.runIf(browsers.run)('the dashboard signed in with `agentd ui`', () => {
  let agentd: Agentd;
  let browser: Browser;
  let page: Page;
  let other: Server;
  let otherOrigin: string;
  const bin = mkdtempSync(join(tmpdir(), 'agentd-opener-'));
  const opened = join(bin, 'opened-url');

  beforeAll(async () => {
    // The opener `agentd ui --open` runs: a real process that records the URL it was given.
    writeFileSync(
      join(bin, 'xdg-open'),
      `#!/bin/sh\nprintf '%s' "$1" > '${opened}.tmp' && mv '${opened}.tmp' '${opened}'\n`,
    );
    chmodSync(join(bin, 'xdg-open'), 0o755);
    // Another local web server: the second origin (same host, another port).
    other = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<!doctype html><title>other</title><p>other origin</p>');
    });
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    otherOrigin = `http://127.0.0.1:${(other.address() as { port: number }).port}`;
    [agentd, browser] = await Promise.all([
      startAgentd({ http: true, config: { agents: { ticker: TICKER } } }),
      launchChromium(),
    ]);
    page = await browser.context.newPage();
    page.on('pageerror', (e) => console.log('page error:', e.message));
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await agentd?.stop();
    other?.close();
  });

  const env = () => cleanEnv({ XDG_RUNTIME_DIR: agentd.dir, PATH: `${bin}:${process.env.PATH}` });
  const endpoint = () => agentd.httpUrl as string;
  const origin = () => new URL(endpoint()).origin;
  const tokenFile = () => join(agentd.dir, 'agentd', 'operator-token');
  let session = '';

  it('keeps a 0600 operator token and names `agentd ui` in the listening lines', () => {
    expect(statSync(tokenFile()).mode & 0o777).toBe(0o600);
    expect(agentd.stdout.join('')).toContain(
      `dashboard: ${origin()}/ui/ (sign in as this machine's user: agentd ui --open)`,
    );
  });

  it('opens the printed sign-in URL, signs in for the tab, and cancels a run from the page', async () => {
    const ui = await runCli(['ui', '--open', '--socket', agentd.socket], env());
    expect(ui.code).toBe(0);
    const token = readFileSync(tokenFile(), 'utf8').trim();
    const url = `${origin()}/ui/#signin=${token}`;
    expect(ui.stdout.trim()).toBe(url);
    await expect.poll(() => existsSync(opened), WAIT).toBe(true);
    expect(readFileSync(opened, 'utf8')).toBe(url);

    const started = await runCli([
      'spawn',
      '--json',
      '--async',
      '--socket',
      agentd.socket,
      '--agent',
      'ticker',
      'line',
    ]);
    expect(started.code).toBe(0);
    const { handle } = JSON.parse(started.stdout) as { handle: string };

    await page.goto(url);
    await page.locator('form[data-action="spawn"]').waitFor({ state: 'visible', ...WAIT });
    // The token is gone from the address bar; the tab keeps a session instead, never the token.
    expect(page.url()).toBe(`${origin()}/ui/`);
    session = (await page.evaluate("sessionStorage.getItem('agentd.token')")) as string;
    expect(session).toMatch(/^ads_/);
    expect(session).not.toContain(token);
    expect(await page.evaluate('document.cookie')).toBe('');
    // It survives a reload.
    await page.reload();
    const row = page.locator(`li[data-run-handle="${handle}"]`);
    await row.waitFor({ state: 'visible', ...WAIT });
    await expect.poll(() => row.getAttribute('data-run-status'), WAIT).toBe('running');
    await row.locator('button').click();
    await page.locator('button[data-action="cancel"]').click();
    await expect.poll(() => row.getAttribute('data-run-status'), WAIT).toBe('cancelled');
    const status = await runCli(['status', '--json', '--socket', agentd.socket, handle]);
    expect(JSON.parse(status.stdout)).toMatchObject({ state: 'cancelled', terminal: true });
  }, 120_000);

  it('a page on another loopback port can neither read the session nor use it', async () => {
    const started = await runCli([
      'spawn',
      '--json',
      '--async',
      '--socket',
      agentd.socket,
      '--agent',
      'ticker',
      'keep',
    ]);
    const { handle } = JSON.parse(started.stdout) as { handle: string };
    const token = readFileSync(tokenFile(), 'utf8').trim();
    const foreign = await browser.context.newPage();
    await foreign.goto(`${otherOrigin}/`);
    expect(await foreign.evaluate("sessionStorage.getItem('agentd.token')")).toBeNull();
    // Even holding the session (or the token), the other origin's requests are refused, so unreadable.
    const outcome = await foreign.evaluate(
      async ({ endpoint, origin, session, token, handle }) => {
        const attempt = async (url: string, init: RequestInit) => {
          try {
            const response = await fetch(url, init);
            return `read ${response.status} ${await response.text()}`;
          } catch (error) {
            return `blocked ${(error as Error).name}`;
          }
        };
        const body = JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: {
            name: 'execute',
            arguments: { code: `return await agentd.subagent.cancel({ handle: '${handle}' })` },
          },
        });
        return {
          act: await attempt(endpoint, {
            method: 'POST',
            headers: {
              authorization: `Bearer ${session}`,
              'content-type': 'application/json',
              accept: 'application/json, text/event-stream',
              'mcp-protocol-version': '2026-07-28',
              'mcp-method': 'tools/call',
              'mcp-name': 'execute',
            },
            body,
          }),
          signIn: await attempt(`${origin}/ui/session`, {
            method: 'POST',
            headers: { authorization: `Bearer ${token}` },
          }),
          // A simple (no preflight) cross-origin form post: a CSRF attempt on the sign-in.
          csrf: await attempt(`${origin}/ui/session`, {
            method: 'POST',
            mode: 'no-cors',
            body: `token=${token}`,
          }),
        };
      },
      { endpoint: endpoint(), origin: origin(), session, token, handle },
    );
    expect(outcome.act).toBe('blocked TypeError');
    expect(outcome.signIn).toBe('blocked TypeError');
    expect(outcome.csrf).toBe('read 0 '); // opaque: nothing readable
    await foreign.close();
    // The server side says the same, whatever a browser would do with it.
    const foreignOrigin = await mcpPost(
      endpoint(),
      'resources/read',
      { uri: 'agent://inventory' },
      { authorization: `Bearer ${session}`, origin: otherOrigin },
    );
    expect(foreignOrigin.status).toBe(403);
    const rebound = await mcpPost(
      endpoint(),
      'resources/read',
      { uri: 'agent://inventory' },
      { authorization: `Bearer ${session}`, host: 'evil.example' },
    );
    expect(rebound.status).toBe(403);
    const own = await mcpPost(
      endpoint(),
      'resources/read',
      { uri: 'agent://inventory' },
      { authorization: `Bearer ${session}`, origin: origin() },
    );
    expect(own.status).toBe(200);
    expect(own.body).toContain(handle);
    // And the run those attempts named still runs.
    const status = await runCli(['status', '--json', '--socket', agentd.socket, handle]);
    expect(JSON.parse(status.stdout)).toMatchObject({ state: 'running' });
    await runCli(['cancel', '--socket', agentd.socket, handle]);
  }, 120_000);

  it('`agentd ui --rotate` ends the session; an anonymous page is told how to sign in', async () => {
    const before = readFileSync(tokenFile(), 'utf8').trim();
    const rotated = await runCli(['ui', '--rotate', '--socket', agentd.socket], env());
    expect(rotated.code).toBe(0);
    const after = readFileSync(tokenFile(), 'utf8').trim();
    expect(after).not.toBe(before);
    expect(rotated.stdout).toContain(`#signin=${after}`);
    // The old session is now nobody: an anonymous peer, which may not read the inventory.
    const stale = await mcpPost(
      endpoint(),
      'resources/read',
      { uri: 'agent://inventory' },
      { authorization: `Bearer ${session}`, origin: origin() },
    );
    expect(stale.body).not.toContain('"listeners"');
    const anonymous = await browser.context.newPage();
    await anonymous.goto(`${origin()}/ui/#signin=${before}`);
    await anonymous.locator('#notice', { hasText: 'agentd ui --open' }).waitFor(WAIT);
    expect(await anonymous.locator('#notice').textContent()).toContain('no longer');
    expect(await anonymous.locator('form[data-action="spawn"]').isHidden()).toBe(true);
    expect(anonymous.url()).toBe(`${origin()}/ui/`);
    await anonymous.close();
  }, 120_000);
});

describe.runIf(browsers.failInCi)('the dashboard signed in with `agentd ui`', () => {
  it('needs chromium under CI', () => {
    expect.fail(CHROMIUM_MISSING_IN_CI);
  });
});

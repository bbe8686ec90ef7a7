/**
 * Headless Debian Chromium (`/usr/bin/chromium`, never a downloaded browser) driven by
 * playwright-core, and a host page running ext-apps' real `AppBridge`, for the MCP Apps browser
 * tests. Without chromium a browser test is one SKIPPED line, except under CI=true, where it fails.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import type { BrowserContext, Frame, Page } from 'playwright-core';

const CHROMIUM = '/usr/bin/chromium';
const HAVE_CHROMIUM = existsSync(CHROMIUM);
const IN_CI = process.env.CI === 'true';
/** ext-apps' host side, from this package's own dependencies, for the host page's bundle. */
const APP_BRIDGE = fileURLToPath(import.meta.resolve('@modelcontextprotocol/ext-apps/app-bridge'));

/** The failure a browser test reports under CI=true when chromium is missing. */
export const CHROMIUM_MISSING_IN_CI = `CI=true but ${CHROMIUM} is missing: .ci/run must apt-get install chromium`;

/**
 * Whether `what` (a browser test file) runs here: `run` with chromium installed; without it one
 * SKIPPED line, or `failInCi` under CI=true (the file then fails with CHROMIUM_MISSING_IN_CI).
 */
export function browserTests(what: string): { run: boolean; failInCi: boolean } {
  if (!HAVE_CHROMIUM && !IN_CI)
    console.warn(`SKIPPED: ${what}: no ${CHROMIUM} (apt-get install -y chromium)`);
  return { run: HAVE_CHROMIUM, failInCi: !HAVE_CHROMIUM && IN_CI };
}

export interface Browser {
  readonly context: BrowserContext;
  close(): Promise<void>;
}

/** A fresh headless Chromium with its own throwaway profile. */
export async function launchChromium(): Promise<Browser> {
  const profile = await mkdtemp(join(tmpdir(), 'agentd-chromium-'));
  const { chromium } = await import('playwright-core');
  const context = await chromium.launchPersistentContext(profile, {
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
  return {
    context,
    async close() {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}

/**
 * `entry` (an ES module) bundled into one IIFE with its imports resolved from `resolveDir`, as a
 * whole HTML page that runs it; the script is safe to inline.
 */
export async function scriptPage(entry: string, resolveDir: string, title: string): Promise<string> {
  const out = await build({
    stdin: { contents: entry, resolveDir, loader: 'js' },
    bundle: true,
    format: 'iife',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    write: false,
    logLevel: 'silent',
  });
  const script = (out.outputFiles[0]?.text ?? '').replace(/<\/script/gi, '<\\/script');
  return `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title></head><body><script>${script}</script></body></html>`;
}

/**
 * `window.startHost(html, options)`: an AppBridge host that loads the view into a sandboxed iframe,
 * forwards its tools/call and resources/read to `window.hostRequest`, and once the view is
 * initialized sends it the tool input (if any) and the tool result.
 */
const HOST_SCRIPT = `
import { AppBridge, PostMessageTransport } from ${JSON.stringify(APP_BRIDGE)};
window.startHost = async (html, { toolInput, toolResult, theme }) => {
  const iframe = document.createElement('iframe');
  iframe.setAttribute('sandbox', 'allow-scripts allow-forms');
  iframe.style.width = '720px';
  iframe.style.height = '600px';
  document.body.append(iframe);
  const bridge = new AppBridge(null, { name: 'agentd-test-host', version: '1.0.0' },
    { serverTools: {}, serverResources: {} }, { hostContext: { theme, displayMode: 'inline' } });
  bridge.oncalltool = (params) => window.hostRequest('tools/call', params);
  bridge.onreadresource = (params) => window.hostRequest('resources/read', params);
  bridge.oninitialized = () => {
    if (toolInput !== undefined) void bridge.sendToolInput({ arguments: toolInput });
    void bridge.sendToolResult(toolResult);
  };
  await bridge.connect(new PostMessageTransport(iframe.contentWindow, iframe.contentWindow));
  iframe.srcdoc = html;
};
`;

export interface HostPage {
  readonly url: string;
  close(): Promise<void>;
}

/** Serves the AppBridge host page on loopback. */
export async function serveHostPage(): Promise<HostPage> {
  const page = await scriptPage(HOST_SCRIPT, dirname(APP_BRIDGE), 'Host');
  const server = createServer((_req, res) =>
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

export interface HostedView {
  readonly page: Page;
  /** The view's iframe. */
  readonly frame: Frame;
  /** Each request the view sent through the host, as `method name-or-uri`. */
  readonly forwarded: string[];
}

/**
 * Opens the host page in a new tab of `browser` and starts the view `html` in it, as a host does
 * after a tool call: the view's requests go to `ask` (the test's MCP client); `theme` is the host's.
 */
export async function hostView(
  browser: Browser,
  host: HostPage,
  view: { html: string; toolResult: unknown; toolInput?: unknown; theme?: 'light' | 'dark' },
  ask: (method: string, params: Record<string, unknown>) => Promise<unknown>,
): Promise<HostedView> {
  const page = await browser.context.newPage();
  page.on('pageerror', (error) => console.log('host page error:', error.message));
  const forwarded: string[] = [];
  await page.exposeFunction('hostRequest', (method: string, params: Record<string, unknown>) => {
    forwarded.push(`${method} ${String(params.name ?? params.uri)}`);
    return ask(method, params);
  });
  await page.goto(host.url);
  const { html, ...options } = view;
  await page.evaluate(
    ([source, start]) =>
      (globalThis as unknown as { startHost(html: string, options: unknown): Promise<void> }).startHost(
        source,
        start,
      ),
    [html, { theme: 'light', ...options }] as const,
  );
  const frame = await (await page.waitForSelector('iframe')).contentFrame();
  if (frame === null) throw new Error('the host did not create the view iframe');
  return { page, frame, forwarded };
}

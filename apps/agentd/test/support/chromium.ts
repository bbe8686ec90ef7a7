/**
 * Headless Debian Chromium (`/usr/bin/chromium`, never a downloaded browser) driven by
 * playwright-core, and a host page running ext-apps' real `AppBridge`, for agentd's UI tests.
 * Screenshots go to apps/agentd/test-output/ (gitignored) for a reviewer to look at.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import type { BrowserContext, Page } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';
export const HAVE_CHROMIUM = existsSync(CHROMIUM);
export const IN_CI = process.env.CI === 'true';
const PACKAGE_DIR = fileURLToPath(new URL('../..', import.meta.url));
const SHOTS = join(PACKAGE_DIR, 'test-output');

export interface Browser {
  readonly context: BrowserContext;
  close(): Promise<void>;
}

export async function launchChromium(): Promise<Browser> {
  const profile = await mkdtemp(join(tmpdir(), 'agentd-ui-chromium-'));
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

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
}

/** `window.startHost(html, toolResult)`: an AppBridge host that forwards the view's requests to `window.hostRequest`. */
const HOST_SCRIPT = `
import { AppBridge, PostMessageTransport } from '@modelcontextprotocol/ext-apps/app-bridge';
window.startHost = async (html, toolResult) => {
  const iframe = document.createElement('iframe');
  iframe.setAttribute('sandbox', 'allow-scripts allow-forms');
  iframe.style.width = '720px';
  iframe.style.height = '600px';
  document.body.append(iframe);
  const bridge = new AppBridge(null, { name: 'agentd-ui-test-host', version: '1.0.0' },
    { serverTools: {}, serverResources: {} }, { hostContext: { theme: 'dark' } });
  bridge.oncalltool = (params) => window.hostRequest('tools/call', params);
  bridge.onreadresource = (params) => window.hostRequest('resources/read', params);
  bridge.oninitialized = () => void bridge.sendToolResult(toolResult);
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
  const out = await build({
    stdin: { contents: HOST_SCRIPT, resolveDir: PACKAGE_DIR, loader: 'js' },
    bundle: true,
    format: 'iife',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    write: false,
    logLevel: 'silent',
  });
  const script = (out.outputFiles[0]?.text ?? '').replace(/<\/script/gi, '<\\/script');
  const page = `<!doctype html><html><head><meta charset="utf-8"><title>Host</title></head><body><script>${script}</script></body></html>`;
  const server: Server = createServer((_req, res) =>
    res.writeHead(200, { 'content-type': 'text/html' }).end(page),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

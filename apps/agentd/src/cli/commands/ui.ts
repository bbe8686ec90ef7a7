/**
 * `agentd ui`: the dashboard beside each HTTP listener, as a URL that signs this machine's user in
 * (the local operator token in its fragment: never sent to the server, nor logged, nor a Referer),
 * opened with `--open`; `--rotate` replaces the token first.
 */
import { spawn } from 'node:child_process';
import { isJsonObject, LocalError, WireError } from '@agentd/rpc-frame';
import { operatorTokenPath, readOperatorToken, rotateOperatorToken } from '../../config/operator-token.js';
import { pretty } from '../format.js';
import type { McpClient } from '../mcp-client.js';
import { readJson } from '../operation-call.js';
import { EXIT } from '../output.js';
import type { CommandHandler, CommandOf } from './command-context.js';

type UiCommand = CommandOf<'ui'>;

/** The dashboards, from the inventory, else beside --url. */
async function dashboards(client: McpClient, command: UiCommand): Promise<URL[]> {
  // A connection that may not read the inventory (or not even connect without a token) still has its --url.
  const inventory = await readJson(client, 'agent://inventory').catch((error: unknown) => {
    if (error instanceof WireError) return undefined;
    if (error instanceof LocalError && error.code === 'daemon_refused') return undefined;
    throw error;
  });
  const listeners = isJsonObject(inventory) && Array.isArray(inventory.listeners) ? inventory.listeners : [];
  const addresses = listeners
    .filter(isJsonObject)
    .map((l) => String(l.address))
    .filter((a) => /^https?:\/\//.test(a));
  if (addresses.length === 0 && command.connection.url !== undefined) addresses.push(command.connection.url);
  const urls = new Map<string, URL>();
  for (const address of addresses) {
    const url = new URL('/ui/', address);
    // A listener on every interface is browsed on this machine through loopback.
    if (url.hostname === '0.0.0.0') url.hostname = '127.0.0.1';
    if (url.hostname === '[::]') url.hostname = '[::1]';
    urls.set(url.href, url);
  }
  return [...urls.values()];
}

/** The local token means something only to a daemon on this machine. */
const isLoopback = (url: URL) =>
  url.hostname === 'localhost' || url.hostname === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(url.hostname);

/**
 * Whether this daemon signs in with the token in our runtime dir (a daemon started with another
 * XDG_RUNTIME_DIR keeps its own): asked by trading it once, as the page would. A link that could
 * not sign in is never printed.
 */
async function signsIn(dashboard: URL, token: string): Promise<boolean> {
  try {
    const response = await fetch(new URL('/ui/session', dashboard), {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, origin: dashboard.origin },
      signal: AbortSignal.timeout(5_000),
    });
    await response.body?.cancel();
    return response.ok;
  } catch {
    return false;
  }
}

/** Resolves true once the opener runs, false when there is none (then the URL is printed). */
function openInBrowser(url: string, env: NodeJS.ProcessEnv): Promise<boolean> {
  const opener = process.platform === 'darwin' ? 'open' : 'xdg-open';
  return new Promise((resolve) => {
    const child = spawn(opener, [url], { env, detached: true, stdio: 'ignore' });
    child.once('error', () => resolve(false));
    child.once('spawn', () => {
      child.unref();
      resolve(true);
    });
  });
}

export const uiCommand: CommandHandler<'ui'> = async (command, { client, io, env }) => {
  const tokenFile = operatorTokenPath(env);
  const token = command.rotate ? rotateOperatorToken(tokenFile) : readOperatorToken(tokenFile);
  if (command.rotate && !command.json) io.err(`agentd: new operator token in ${tokenFile}\n`);
  const urls: string[] = [];
  for (const url of await dashboards(client, command)) {
    const local = token !== undefined && isLoopback(url) && (await signsIn(url, token));
    urls.push(local ? `${url.href}#signin=${token}` : url.href);
  }
  if (token !== undefined && !command.json && urls.length > 0 && !urls.some((u) => u.includes('#signin=')))
    io.err(
      `agentd: this daemon does not sign in with ${tokenFile} (started with another XDG_RUNTIME_DIR?)\n`,
    );
  if (urls.length === 0) {
    if (command.json) io.out(pretty(urls));
    else io.err('agentd: the daemon serves no HTTP listener (add --serve http://127.0.0.1:PORT)\n');
    return EXIT.failed;
  }
  const first = urls[0] as string;
  const opened = command.open ? await openInBrowser(first, env) : false;
  if (command.json) io.out(pretty(urls));
  else {
    for (const url of urls) io.out(`${url}\n`);
    if (command.open)
      io.err(
        opened
          ? 'agentd: opened the first in your browser\n'
          : 'agentd: no xdg-open here: open the URL yourself\n',
      );
  }
  return EXIT.ok;
};

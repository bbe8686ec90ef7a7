/**
 * The MCP App's way to agentd: only through the host (MCP Apps, SEP-1865), JSON-RPC over
 * postMessage with the parent window. ext-apps' `App` class would bundle the SDK and zod (far past
 * the page's size budget), so the few messages the page needs are written here by hand.
 */
import { type Connection, type Json, PageError } from './connection.js';

const APPS_PROTOCOL = '2026-01-26';

export interface HostEvents {
  /** `ui/notifications/tool-result`: the result of the tool this view was opened for. */
  onToolResult(result: Json): void;
  /** The host's theme, at initialize and on each `host-context-changed`. */
  onTheme(theme: string): void;
}

export async function connectHost(events: HostEvents): Promise<Connection> {
  let nextId = 1;
  const pending = new Map<number, { resolve: (r: Json) => void; reject: (e: Error) => void }>();
  const post = (message: Json) => window.parent.postMessage({ jsonrpc: '2.0', ...message }, '*');
  const request = (method: string, params: Json) =>
    new Promise<Json>((resolve, reject) => {
      const id = nextId++;
      pending.set(id, { resolve, reject });
      post({ id, method, params });
    });
  const context = (value: unknown) => {
    const theme = (value as Json | undefined)?.theme;
    if (typeof theme === 'string') events.onTheme(theme);
  };

  window.addEventListener('message', (event) => {
    // Only the host frame speaks for the host.
    if (event.source !== window.parent) return;
    const message = event.data as Json | null;
    if (message?.jsonrpc !== '2.0') return;
    const method = message.method;
    if (method === undefined) {
      const waiter = pending.get(message.id as number);
      pending.delete(message.id as number);
      const error = message.error as { message?: string } | undefined;
      if (error !== undefined) waiter?.reject(new PageError('bridge', error.message ?? 'host refused'));
      else waiter?.resolve((message.result ?? {}) as Json);
      return;
    }
    if (method === 'ui/notifications/tool-result') events.onToolResult((message.params ?? {}) as Json);
    else if (method === 'ui/notifications/host-context-changed') context(message.params);
    else if (message.id !== undefined) {
      // Host requests: ping and ui/resource-teardown need nothing from us but an answer.
      const known = method === 'ping' || method === 'ui/resource-teardown';
      post(
        known
          ? { id: message.id, result: {} }
          : { id: message.id, error: { code: -32601, message: `method not found: ${String(method)}` } },
      );
    }
  });

  const init = await request('ui/initialize', {
    appInfo: { name: 'agentd-runs', version: '1.0.0' },
    appCapabilities: {},
    protocolVersion: APPS_PROTOCOL,
  });
  context(init.hostContext);
  post({ method: 'ui/notifications/initialized', params: {} });
  // The host sizes the frame to the content it is told about.
  const size = () =>
    post({
      method: 'ui/notifications/size-changed',
      params: { width: document.documentElement.scrollWidth, height: document.documentElement.scrollHeight },
    });
  new ResizeObserver(size).observe(document.documentElement);
  return { request };
}

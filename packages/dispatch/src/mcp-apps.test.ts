/**
 * MCP Apps through the real server core, checked against `@modelcontextprotocol/ext-apps` itself:
 * its exported schemas and constants (McpUiToolMetaSchema, McpUiResourceMetaSchema,
 * RESOURCE_MIME_TYPE, RESOURCE_URI_META_KEY, getUiCapability) and its validator's server rules
 * APP-001..011, which the package does not export, re-checked here on what our server answers.
 */

import { type JsonObject, silentLogger } from '@agentd/rpc-frame';
import {
  McpUiResourceMetaSchema,
  McpUiToolMetaSchema,
  RESOURCE_MIME_TYPE,
  RESOURCE_URI_META_KEY,
} from '@modelcontextprotocol/ext-apps';
import { EXTENSION_ID, getUiCapability } from '@modelcontextprotocol/ext-apps/server';
import { describe, expect, it } from 'vitest';
import { registerAppResource } from './app-resource.js';
import { registerAppTool } from './app-tool.js';
import { Dispatcher } from './dispatcher.js';
import { memoryClient } from './test-support/memory-core.js';

const VIEW = 'ui://weather/view.html';
const HTML = '<!doctype html><html><body><h1>Weather</h1></body></html>';
const UI_CAPS = { extensions: { [EXTENSION_ID]: { mimeTypes: [RESOURCE_MIME_TYPE] } } };

function appDispatcher(): Dispatcher {
  const dispatcher = new Dispatcher({ logger: silentLogger });
  registerAppResource(dispatcher, {
    uri: VIEW,
    name: 'weather_view',
    description: 'The weather dashboard',
    html: HTML,
    ui: {
      csp: { connectDomains: ['https://api.weather.example'], resourceDomains: ['https://*.cdn.example'] },
      permissions: { geolocation: {} },
      domain: 'weather.apps.example',
      prefersBorder: true,
    },
  });
  registerAppTool(dispatcher, {
    name: 'get_weather',
    description: 'Current weather for a city',
    inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    outputSchema: {
      type: 'object',
      properties: { city: { type: 'string' }, celsius: { type: 'number' } },
      required: ['city', 'celsius'],
    },
    ui: { resourceUri: VIEW },
    handler: (args) => ({ city: args.city, celsius: 21 }),
  });
  registerAppTool(dispatcher, {
    name: 'refresh_weather',
    description: 'Refreshes the dashboard (app only)',
    ui: { resourceUri: VIEW, visibility: ['app'] },
    handler: (_args, context) => `refreshed for ${JSON.stringify(context.extension(EXTENSION_ID))}`,
  });
  registerAppTool(dispatcher, {
    name: 'silent',
    description: 'Forgets to return content',
    ui: { resourceUri: VIEW },
    handler: () => undefined,
  });
  return dispatcher;
}

const tools = (answer: JsonObject) => ((answer.result as JsonObject).tools as JsonObject[]) ?? [];
const byName = (list: JsonObject[], name: string) => list.find((t) => t.name === name) as JsonObject;

/** The validator's static server rules, on a tools/list + resources/list + resources/read of ours. */
function staticFindings(toolList: JsonObject[], resources: JsonObject[], read: JsonObject[]): string[] {
  const findings: string[] = [];
  const checkResourceUi = (ui: unknown, subject: string) => {
    if (ui === undefined) return;
    if (!McpUiResourceMetaSchema.safeParse(ui).success) findings.push(`APP-008 ${subject}`);
    const csp = (ui as { csp?: Record<string, unknown> }).csp ?? {};
    for (const list of Object.values(csp))
      for (const origin of list as unknown[])
        if (typeof origin !== 'string' || !/^(https?|wss?):\/\/(\*\.)?[^\s/*]+$/.test(origin))
          findings.push(`APP-009 ${subject}`);
  };
  for (const r of resources) {
    const ui = (r._meta as JsonObject | undefined)?.ui;
    const isUi = String(r.uri).startsWith('ui://');
    if (!isUi && (ui !== undefined || r.mimeType === RESOURCE_MIME_TYPE)) findings.push(`APP-001 ${r.uri}`);
    if (isUi && r.mimeType !== RESOURCE_MIME_TYPE) findings.push(`APP-002 ${r.uri}`);
    if (isUi) checkResourceUi(ui, String(r.uri));
  }
  const referenced = new Set<string>();
  for (const tool of toolList) {
    const meta = (tool._meta ?? {}) as JsonObject;
    const ui = meta.ui as JsonObject | undefined;
    const uri = (ui?.resourceUri ?? meta[RESOURCE_URI_META_KEY]) as string | undefined;
    if (uri === undefined) continue;
    referenced.add(uri);
    if (!uri.startsWith('ui://')) findings.push(`APP-001 ${tool.name}`);
    if (meta[RESOURCE_URI_META_KEY] !== undefined && ui?.resourceUri === undefined)
      findings.push(`APP-006 ${tool.name}`);
    for (const entry of (ui?.visibility as unknown[] | undefined) ?? [])
      if (entry !== 'model' && entry !== 'app') findings.push(`APP-011 ${tool.name}`);
    if (ui !== undefined && !McpUiToolMetaSchema.safeParse(ui).success) findings.push(`APP-007 ${tool.name}`);
  }
  for (const uri of referenced) {
    const contents = read.filter((c) => c.uri === uri);
    if (contents.length === 0) findings.push(`APP-005 ${uri}`);
    for (const c of contents) {
      if (c.mimeType !== RESOURCE_MIME_TYPE) findings.push(`APP-002 ${uri}`);
      if (typeof c.text !== 'string' && typeof c.blob !== 'string') findings.push(`APP-003 ${uri}`);
      const html = String(c.text ?? '')
        .trim()
        .toLowerCase();
      if (!html.startsWith('<!doctype html') && !/<html[\s>]/.test(html.slice(0, 1024)))
        findings.push(`APP-004 ${uri}`);
      checkResourceUi((c._meta as JsonObject | undefined)?.ui, uri);
    }
  }
  return findings;
}

describe('MCP Apps (io.modelcontextprotocol/ui)', () => {
  it('the rule check itself finds what the validator would', () => {
    const findings = staticFindings(
      [
        { name: 'flat', _meta: { [RESOURCE_URI_META_KEY]: 'https://x.example/v' } },
        { name: 'vis', _meta: { ui: { resourceUri: 'ui://v', visibility: ['agent'] } } },
      ],
      [{ uri: 'ui://v', mimeType: 'text/html', _meta: { ui: { csp: { connectDomains: ['x.example'] } } } }],
      [{ uri: 'ui://v', mimeType: RESOURCE_MIME_TYPE, text: 'plain text' }],
    );
    expect(findings).toEqual([
      'APP-002 ui://v',
      'APP-009 ui://v',
      'APP-001 flat',
      'APP-006 flat',
      'APP-011 vis',
      'APP-007 vis',
      'APP-005 https://x.example/v',
      'APP-004 ui://v',
    ]);
  });

  it('passes the ext-apps validator rules in both eras, for a host with the extension', async () => {
    const legacy = memoryClient(appDispatcher());
    const init = await legacy.initialize(UI_CAPS, '2025-06-18');
    expect((init.capabilities as JsonObject).extensions).toEqual({ [EXTENSION_ID]: {} });
    const modern = memoryClient(appDispatcher());
    const discover = (await modern.modern('server/discover')).result as JsonObject;
    expect((discover.capabilities as JsonObject).extensions).toEqual({ [EXTENSION_ID]: {} });

    const eras = [
      (method: string, params?: JsonObject) => legacy.legacy(method, params),
      (method: string, params?: JsonObject) => modern.modern(method, params, UI_CAPS),
    ];
    for (const ask of eras) {
      const listed = tools(await ask('tools/list'));
      expect(listed.map((t) => t.name).sort()).toEqual(['get_weather', 'refresh_weather', 'silent']);
      expect(byName(listed, 'get_weather')._meta).toEqual({
        ui: { resourceUri: VIEW },
        [RESOURCE_URI_META_KEY]: VIEW,
      });
      expect(byName(listed, 'refresh_weather')._meta).toEqual({
        ui: { resourceUri: VIEW, visibility: ['app'] },
        [RESOURCE_URI_META_KEY]: VIEW,
      });
      const resources = ((await ask('resources/list')).result as JsonObject).resources as JsonObject[];
      expect(resources).toEqual([
        expect.objectContaining({ uri: VIEW, name: 'weather_view', mimeType: RESOURCE_MIME_TYPE }),
      ]);
      const read = ((await ask('resources/read', { uri: VIEW })).result as JsonObject)
        .contents as JsonObject[];
      expect(read).toEqual([
        {
          uri: VIEW,
          mimeType: RESOURCE_MIME_TYPE,
          text: HTML,
          _meta: {
            ui: {
              csp: {
                connectDomains: ['https://api.weather.example'],
                resourceDomains: ['https://*.cdn.example'],
              },
              permissions: { geolocation: {} },
              domain: 'weather.apps.example',
              prefersBorder: true,
            },
          },
        },
      ]);
      expect(staticFindings(listed, resources, read)).toEqual([]);
      // The app calls its app-only tool; the handler sees the host's settings as ext-apps reads them.
      const refreshed = (await ask('tools/call', { name: 'refresh_weather' })).result as JsonObject;
      expect(refreshed.content).toEqual([
        { type: 'text', text: `refreshed for ${JSON.stringify(getUiCapability(UI_CAPS))}` },
      ]);
    }
  });

  it('a host without the extension: app-only tools do not exist, UI tools still answer with content', async () => {
    const legacy = memoryClient(appDispatcher());
    await legacy.initialize({});
    const modern = memoryClient(appDispatcher());
    const eras = [
      (method: string, params?: JsonObject) => legacy.legacy(method, params),
      (method: string, params?: JsonObject) => modern.modern(method, params, {}),
    ];
    for (const ask of eras) {
      expect(tools(await ask('tools/list')).map((t) => t.name)).toEqual(['get_weather', 'silent']);
      const hidden = await ask('tools/call', { name: 'refresh_weather' });
      expect(JSON.stringify(hidden)).toMatch(/refresh_weather/);
      expect((hidden.result as JsonObject | undefined)?.isError ?? hidden.error).toBeTruthy();
      const weather = (await ask('tools/call', { name: 'get_weather', arguments: { city: 'Oslo' } }))
        .result as JsonObject;
      expect(weather.structuredContent).toEqual({ city: 'Oslo', celsius: 21 });
      expect(weather.content).toEqual([
        { type: 'text', text: JSON.stringify({ city: 'Oslo', celsius: 21 }) },
      ]);
      // APP-010: a UI tool that produced nothing is a logged server bug; the host still gets content.
      const silent = (await ask('tools/call', { name: 'silent' })).result as JsonObject;
      expect(silent).toMatchObject({ isError: true, content: [{ type: 'text', text: expect.any(String) }] });
    }
    // A 2026-07-28 request that declares the extension sees the app-only tool again: nothing carries over.
    expect(tools(await modern.modern('tools/list', {}, UI_CAPS)).map((t) => t.name)).toContain(
      'refresh_weather',
    );
  });

  it('refuses bad registrations with LocalError invalid_definition, at registration time', () => {
    const d = new Dispatcher({ logger: silentLogger });
    const bad = (fn: () => unknown, text: RegExp) =>
      expect(fn).toThrow(
        expect.objectContaining({ code: 'invalid_definition', message: expect.stringMatching(text) }),
      );
    const tool = { name: 't', description: 'd', handler: () => 'x' };
    bad(() => registerAppTool(d, { ...tool, ui: { resourceUri: VIEW } }), /not a registered UI resource/);
    bad(() => registerAppResource(d, { uri: 'https://x.example/v.html', name: 'v', html: HTML }), /ui:\/\//);
    bad(() => registerAppResource(d, { uri: VIEW, name: 'v', html: '{"not":"html"}' }), /HTML5 document/);
    bad(
      () =>
        registerAppResource(d, {
          uri: VIEW,
          name: 'v',
          html: HTML,
          ui: { csp: { connectDomains: ['api.example'] } },
        }),
      /not an origin/,
    );
    bad(
      () =>
        registerAppResource(d, {
          uri: VIEW,
          name: 'v',
          html: HTML,
          ui: { csp: { connectDomain: ['https://a.example'] } } as never,
        }),
      /connectDomain is not a CSP field/,
    );
    bad(
      () =>
        registerAppResource(d, {
          uri: VIEW,
          name: 'v',
          html: HTML,
          ui: { permissions: { usb: {} } as never },
        }),
      /not a permission/,
    );
    const removeView = registerAppResource(d, { uri: VIEW, name: 'v', html: HTML });
    bad(
      () => registerAppTool(d, { ...tool, ui: { resourceUri: VIEW, visibility: ['agent' as never] } }),
      /"agent"/,
    );
    bad(() => registerAppTool(d, { ...tool, ui: { resourceUri: VIEW, visibility: [] } }), /non-empty/);
    bad(() => registerAppTool(d, { ...tool, ui: { resourceUri: 'view.html' } }), /ui:\/\//);
    bad(
      () => registerAppTool(d, { ...tool, ui: { resourceUri: VIEW, csp: {} } as never }),
      /belongs on the UI resource/,
    );
    const removeTool = registerAppTool(d, { ...tool, ui: { resourceUri: VIEW } });
    bad(removeView, /still linked by tool\(s\) t/);
    expect(removeTool()).toBe(true);
    expect(removeView()).toBe(true);
    expect(d.capabilities().resources).toBeUndefined();
  });
});

/** `requiredScopes`: hidden from lists and refused as unknown for tokens without them; exempt peers; step-up. */
import { ErrorCode } from '@agentd/lifecycle';
import type { JsonObject } from '@agentd/rpc-frame';
import type { Peer } from '@agentd/server';
import { afterEach, describe, expect, it } from 'vitest';
import { Dispatcher } from './dispatcher.js';
import type { DispatcherOptions } from './dispatcher-options.js';
import { type PeerCore, peerCore } from './test-support/peer-core.js';

const oauth = (scopes: string[]): Peer => ({
  origin: 'management',
  connectionId: `oauth-${scopes.join('+')}`,
  transport: 'http',
  auth: { principal: 'ada', scopes, scheme: 'oauth' },
  attributes: {},
});
const STATIC_TOKEN: Peer = {
  origin: 'management',
  connectionId: 'static',
  transport: 'http',
  auth: { principal: 'ops-token', scopes: [], scheme: 'token' },
  attributes: {},
};
const UNIX: Peer = { origin: 'management', connectionId: 'unix', transport: 'unix', attributes: {} };
const ANONYMOUS: Peer = { origin: 'anonymous', connectionId: 'anon', transport: 'http', attributes: {} };

let open: PeerCore[] = [];
afterEach(async () => {
  for (const core of open) await core.close();
  open = [];
});

function build(options: DispatcherOptions = {}) {
  const dispatcher = new Dispatcher(options);
  dispatcher.registerTool({ name: 'runs_list', description: 'Lists runs', handler: () => 'runs' });
  dispatcher.registerTool({
    name: 'runs_start',
    description: 'Starts a run',
    requiredScopes: ['runs:write'],
    handler: () => 'started',
  });
  dispatcher.registerOperation({
    kind: 'command',
    id: 'drain',
    description: 'Drains',
    requiredScopes: ['admin'],
    handler: () => 'drained',
  });
  dispatcher.registerPrompt({
    name: 'postmortem',
    description: 'Writes a postmortem',
    requiredScopes: ['runs:read'],
    get: () => 'Write it.',
  });
  dispatcher.registerResource({
    uri: 'agent://audit',
    name: 'audit',
    requiredScopes: ['admin'],
    read: () => 'audit log',
  });
  dispatcher.registerResource({ uri: 'agent://status', name: 'status', read: () => 'ok' });
  dispatcher.registerResourceTemplate({
    uriTemplate: 'agent://run/{id}',
    name: 'run',
    requiredScopes: ['runs:read'],
    read: (_uri, variables) => `run ${String(variables.id)}`,
  });
  return dispatcher;
}

function serve(dispatcher: Dispatcher, peer: Peer): PeerCore {
  const core = peerCore(dispatcher, peer);
  open.push(core);
  return core;
}

async function surface(core: PeerCore) {
  const names = (response: JsonObject, field: string, key: string) =>
    ((response.result as JsonObject)[field] as JsonObject[]).map((e) => e[key]);
  return {
    tools: names(await core.call('tools/list'), 'tools', 'name'),
    prompts: names(await core.call('prompts/list'), 'prompts', 'name'),
    resources: names(await core.call('resources/list'), 'resources', 'uri'),
    templates: names(await core.call('resources/templates/list'), 'resourceTemplates', 'uriTemplate'),
  };
}

describe('requiredScopes', () => {
  it('hides what the token lacks scopes for from every list', async () => {
    const dispatcher = build();
    expect(await surface(serve(dispatcher, oauth(['runs:read'])))).toEqual({
      tools: ['runs_list'],
      prompts: ['postmortem'],
      resources: ['agent://status'],
      templates: ['agent://run/{id}'],
    });
    expect(await surface(serve(dispatcher, oauth(['runs:write', 'admin'])))).toEqual({
      tools: ['command_drain', 'runs_list', 'runs_start'],
      prompts: [],
      resources: ['agent://audit', 'agent://status', 'mcp://schema/command/drain'],
      templates: [],
    });
  });

  it('refuses a call, get or read exactly as for something that does not exist', async () => {
    const core = serve(build(), oauth(['runs:read']));
    const hidden = await core.call('tools/call', { name: 'runs_start', arguments: {} }, 1);
    const absent = await core.call('tools/call', { name: 'runs_startx', arguments: {} }, 1);
    expect(hidden.error).toEqual({ code: -32602, message: 'Unknown tool: runs_start' });
    expect(absent.error).toEqual({ code: -32602, message: 'Unknown tool: runs_startx' });
    const op = await core.call('tools/call', { name: 'command_drain', arguments: {} });
    expect(op.error).toMatchObject({ code: -32602, message: 'Unknown tool: command_drain' });
    const audit = await core.call('resources/read', { uri: 'agent://audit' }, 2);
    const nothing = await core.call('resources/read', { uri: 'agent://nothing' }, 2);
    expect(JSON.stringify(audit).replace('audit', 'nothing')).toBe(JSON.stringify(nothing));
    const schema = await core.call('resources/read', { uri: 'mcp://schema/command/drain' });
    expect(schema.error).toMatchObject({ code: -32602 });
    // With the scope, the same requests succeed.
    const admin = serve(build(), oauth(['admin', 'runs:write']));
    expect((await admin.call('tools/call', { name: 'command_drain', arguments: {} })).result).toMatchObject({
      content: [{ type: 'text', text: 'drained' }],
    });
    expect((await admin.call('resources/read', { uri: 'agent://audit' })).result).toMatchObject({
      contents: [{ text: 'audit log' }],
    });
    const run = await admin.call('resources/read', { uri: 'agent://run/7' });
    expect(run.error).toMatchObject({ code: -32602 });
    const prompt = await admin.call('prompts/get', { name: 'postmortem' });
    expect(prompt.error).toMatchObject({ code: -32602 });
  });

  it('exempts static tokens and unix peers; an anonymous peer holds no scopes', async () => {
    const dispatcher = build();
    const everything = {
      tools: ['command_drain', 'runs_list', 'runs_start'],
      prompts: ['postmortem'],
      resources: ['agent://audit', 'agent://status', 'mcp://schema/command/drain'],
      templates: ['agent://run/{id}'],
    };
    expect(await surface(serve(dispatcher, STATIC_TOKEN))).toEqual(everything);
    expect(await surface(serve(dispatcher, UNIX))).toEqual(everything);
    expect(await surface(serve(dispatcher, ANONYMOUS))).toEqual({
      tools: ['runs_list'],
      prompts: [],
      resources: ['agent://status'],
      templates: [],
    });
  });

  it('takes the scopes from scopesOf when given', async () => {
    const dispatcher = build({ scopesOf: (peer) => (peer.transport === 'unix' ? ['runs:read'] : undefined) });
    expect((await surface(serve(dispatcher, UNIX))).tools).toEqual(['runs_list']);
    expect((await surface(serve(dispatcher, oauth([])))).tools).toHaveLength(3);
  });

  it('filters the operation index by scopes too', () => {
    const dispatcher = build();
    expect(dispatcher.operationIndex(oauth(['runs:read']))).toEqual([]);
    expect(dispatcher.operationIndex(oauth(['admin'])).map((o) => o.id)).toEqual(['drain']);
  });

  it('with stepUp, answers insufficient scope naming the scopes, but never for what filters hide', async () => {
    const dispatcher = build({
      stepUp: true,
      filtersFor: (peer) =>
        peer.auth?.principal === 'ada' ? { visible: { deny: ['command_*'] } } : undefined,
    });
    const core = serve(dispatcher, oauth(['runs:read']));
    const refused = await core.call('tools/call', { name: 'runs_start', arguments: {} });
    expect(refused.error).toEqual({
      code: ErrorCode.InsufficientScope,
      message: 'Forbidden: insufficient scope',
      data: { requiredScopes: ['runs:write'] },
    });
    // Hidden by the client filters as well: still unknown, so nothing is revealed.
    const denied = await core.call('tools/call', { name: 'command_drain', arguments: {} });
    expect(denied.error).toMatchObject({ code: -32602, message: 'Unknown tool: command_drain' });
    expect((await surface(core)).tools).toEqual(['runs_list']);
  });

  it('rejects scopes that are not OAuth scope tokens', () => {
    const dispatcher = new Dispatcher();
    for (const bad of [['has space'], [''], 'admin', [7]]) {
      expect(() =>
        dispatcher.registerTool({
          name: 'bad',
          description: 'Bad scopes',
          requiredScopes: bad as string[],
          handler: () => 'x',
        }),
      ).toThrow(/requiredScopes/);
    }
  });
});

/** Extension negotiation rules: reading the client's declarations, -32021, ids, and what each era shows. */
import { describe, expect, it } from 'vitest';
import {
  clientExtension,
  extensionServedIn,
  extensionsForEra,
  isExtensionId,
  missingExtension,
} from './extensions.js';
import { lifecycleResponse } from './lifecycle-response.js';

const UI = 'io.modelcontextprotocol/ui';
const SERVER = { name: 's', version: '1' };

describe('extension negotiation', () => {
  it("reads the client's settings for an extension; only an object declares one", () => {
    const caps = {
      extensions: {
        [UI]: { mimeTypes: ['text/html;profile=mcp-app'] },
        'dev.agentd/flag': true,
        'x.y/z': null,
      },
    };
    expect(clientExtension(caps, UI)).toEqual({ mimeTypes: ['text/html;profile=mcp-app'] });
    expect(clientExtension(caps, 'dev.agentd/flag')).toBeUndefined();
    expect(clientExtension(caps, 'x.y/z')).toBeUndefined();
    expect(clientExtension(caps, 'toString')).toBeUndefined();
    expect(clientExtension({}, UI)).toBeUndefined();
    expect(clientExtension({ extensions: [] }, UI)).toBeUndefined();
  });

  it('names the missing extension and its settings in -32021', () => {
    expect(missingExtension(UI, { mimeTypes: ['text/html;profile=mcp-app'] }).toJSON()).toEqual({
      code: -32021,
      message: 'Missing required client capability',
      data: { requiredCapabilities: { extensions: { [UI]: { mimeTypes: ['text/html;profile=mcp-app'] } } } },
    });
    expect(missingExtension(UI).toJSON().data).toEqual({
      requiredCapabilities: { extensions: { [UI]: {} } },
    });
  });

  it('accepts {vendor-prefix}/{name} ids only', () => {
    for (const id of [UI, 'io.modelcontextprotocol/skills', 'com.example/my-ext', 'dev.agentd/a.b_c'])
      expect(isExtensionId(id)).toBe(true);
    for (const id of ['ui', 'io.modelcontextprotocol/', '/ui', 'io/ui', 'io..x/ui', 'io.x/ui/more', '', 7])
      expect(isExtensionId(id)).toBe(false);
  });

  it('serves the tasks extension in 2026-07-28 only, every other extension in both eras', () => {
    expect(extensionServedIn('io.modelcontextprotocol/tasks', 'modern')).toBe(true);
    expect(extensionServedIn('io.modelcontextprotocol/tasks', 'legacy')).toBe(false);
    expect(extensionServedIn(UI, 'legacy')).toBe(true);
    const both = { [UI]: {}, 'io.modelcontextprotocol/tasks': {} };
    expect(extensionsForEra(both, 'modern')).toEqual(both);
    expect(extensionsForEra(both, 'legacy')).toEqual({ [UI]: {} });
    expect(extensionsForEra({ 'io.modelcontextprotocol/tasks': {} }, 'legacy')).toBeUndefined();
    expect(extensionsForEra(undefined, 'modern')).toBeUndefined();
  });

  it('initialize and server/discover show the server extensions each era serves', () => {
    const caps = { tools: {}, extensions: { [UI]: {}, 'io.modelcontextprotocol/tasks': {} } };
    const init = lifecycleResponse(
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'c', version: '1' } },
      },
      SERVER,
      caps,
    );
    expect(init).toMatchObject({ result: { capabilities: { tools: {}, extensions: { [UI]: {} } } } });
    expect(JSON.parse(JSON.stringify(init)).result.capabilities.extensions).toEqual({ [UI]: {} });
    const discover = lifecycleResponse(
      {
        jsonrpc: '2.0',
        id: 2,
        method: 'server/discover',
        params: {
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientCapabilities': {},
          },
        },
      },
      SERVER,
      caps,
    );
    expect(discover).toMatchObject({ result: { capabilities: caps } });
  });
});

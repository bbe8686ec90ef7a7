/** The README examples, run for real. */
import { classify, type JsonRpcMessage } from '@agentd/rpc-frame';
import { createServerCore, silentLogger } from '@agentd/server';
import { describe, expect, it } from 'vitest';
import { ContractServer } from './contract-server.js';
import { Dispatcher } from './dispatcher.js';
import { InputRequired } from './input-required.js';

describe('README examples', () => {
  it('the Example, on the Dispatcher below McpServer, serves its tools through a real server core', async () => {
    const dispatcher = new Dispatcher({
      filtersFor: (peer) => (peer.origin === 'management' ? undefined : { visible: { deny: ['command_*'] } }),
    });
    dispatcher.registerTool({
      name: 'greet',
      description: 'Greets someone',
      inputSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
      handler: ({ name }) => `Hello, ${String(name)}!`,
    });
    dispatcher.registerOperation({
      kind: 'query',
      id: 'servers',
      description: 'List servers',
      outputType: 'string[]',
      handler: () => ['alpha'],
    });
    const core = createServerCore({
      handler: dispatcher,
      serverInfo: { name: 'demo', version: '1.0.0' },
      logger: silentLogger,
    });
    const pushed: JsonRpcMessage[] = [];
    dispatcher.onSurfaceChanged((kinds) => {
      for (const kind of kinds) core.notifyListChanged(kind);
    });
    const connection = core.openConnection(
      { origin: 'stdio', connectionId: 'readme', transport: 'memory', attributes: {} },
      { id: 'readme', closed: false, write: (m) => pushed.push(m) > 0, close: () => {} },
    );
    const meta = {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientCapabilities': {},
    };
    const response = await connection.handle(
      classify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { _meta: meta, name: 'greet', arguments: { name: 'Ada' } },
      }),
    );
    expect(response).toMatchObject({
      id: 1,
      result: { content: [{ type: 'text', text: 'Hello, Ada!' }], resultType: 'complete' },
    });
    const servers = await connection.handle(
      classify({
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { _meta: meta, name: 'query_servers' },
      }),
    );
    expect(servers).toMatchObject({ result: { structuredContent: ['alpha'] } });
    connection.close();
    await core.close();
  });

  it('the ContractServer example asks for confirmation, then deletes', async () => {
    const server = new ContractServer();
    server.registerTool(
      'delete',
      'Deletes after confirmation',
      { type: 'object' },
      (_args, inputResponses) => {
        if (inputResponses?.confirm !== 'yes')
          throw new InputRequired([{ id: 'confirm', prompt: "Type 'yes'" }]);
        return 'deleted';
      },
    );
    const first = await server.handleRequest({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'delete' },
    });
    expect(first).toMatchObject({ result: { resultType: 'input_required', requests: [{ id: 'confirm' }] } });
    const second = await server.handleRequest({
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'delete', inputResponses: { confirm: 'yes' } },
    });
    expect(second).toMatchObject({ result: { content: [{ type: 'text', text: 'deleted' }] } });
  });
});

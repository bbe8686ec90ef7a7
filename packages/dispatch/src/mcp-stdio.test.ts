/** serveMcpStdio: NDJSON framing, limits and the child-process contract (stdout is protocol only). */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { silentLogger } from '@agentd/rpc-frame';
import { describe, expect, it } from 'vitest';
import { ContractServer } from './contract-server.js';
import { serveMcpStdio } from './mcp-stdio.js';

const here = dirname(fileURLToPath(import.meta.url));

function streams() {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  let output = '';
  stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString('utf8');
  });
  const messages = () =>
    output
      .trim()
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line));
  return { stdin, stdout, messages };
}

function echoServer() {
  const server = new ContractServer({ logger: silentLogger });
  server.registerTool('echo', 'Echoes', { properties: { text: { type: 'string' } } }, (args) =>
    String(args.text),
  );
  return server;
}

describe('serveMcpStdio', () => {
  it('answers each line, skips blank ones, and flushes a last line without a newline', async () => {
    const { stdin, stdout, messages } = streams();
    const served = serveMcpStdio(echoServer(), { stdin, stdout });
    stdin.write('\n   \r\n');
    stdin.write(
      '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"a"}}}\r\n',
    );
    // One request split across chunks, inside a multi-byte character.
    const split = Buffer.from(
      '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"é"}}}\n',
    );
    const cut = split.indexOf(Buffer.from('é')) + 1;
    stdin.write(split.subarray(0, cut));
    stdin.write(split.subarray(cut));
    stdin.end('{"jsonrpc":"2.0","id":3,"method":"initialize"}');
    await served;
    const byId = new Map(messages().map((m) => [m.id, m]));
    expect(byId.size).toBe(3);
    expect(byId.get(1).result.content).toEqual([{ type: 'text', text: 'a' }]);
    expect(byId.get(2).result.content).toEqual([{ type: 'text', text: 'é' }]);
    expect(byId.get(3).error.code).toBe(-32601);
  });

  it('answers an overlong line -32600 once, skips the rest of it, and keeps serving', async () => {
    const { stdin, stdout, messages } = streams();
    const served = serveMcpStdio(echoServer(), { stdin, stdout, maxLineBytes: 64 });
    stdin.write(`{"jsonrpc":"2.0","id":"big","method":"tools/list","params":{"x":"${'y'.repeat(40)}`);
    stdin.write(`${'z'.repeat(200)}"}}\n`);
    stdin.write('not json\n');
    stdin.end('{"jsonrpc":"2.0","id":"after","method":"tools/list"}\n');
    await served;
    const [tooLong, parse, after] = messages();
    expect(tooLong).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: 'Invalid Request: a line is limited to 64 bytes' },
    });
    expect(parse).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
    expect(after.id).toBe('after');
    expect(after.result.tools).toHaveLength(1);
  });

  it('holds at most maxInFlight requests at once, and answers them all', async () => {
    const server = new ContractServer({ logger: silentLogger });
    let running = 0;
    let peak = 0;
    server.registerTool('wait', 'Waits a tick', {}, async () => {
      running++;
      peak = Math.max(peak, running);
      // Stay in flight across a turn of the event loop, so the calls overlap if they may.
      await new Promise((resolve) => setImmediate(resolve));
      running--;
      return 'done';
    });
    const { stdin, stdout, messages } = streams();
    const served = serveMcpStdio(server, { stdin, stdout, maxInFlight: 2 });
    for (let id = 0; id < 10; id++) {
      // One line per chunk, so pausing the input takes effect between requests.
      await new Promise((resolve) => setImmediate(resolve));
      stdin.write(`{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"wait"}}\n`);
    }
    stdin.end();
    await served;
    expect(
      messages()
        .map((m) => m.id)
        .sort((a, b) => a - b),
    ).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(peak).toBeLessThanOrEqual(2);
  });

  it('as a child process: answers out of order by id, stdout carries only protocol, exit 0 on EOF', async () => {
    const fixture = join(here, 'test-support', 'mcp-stdio-child.mjs');
    expect(existsSync(join(here, '..', 'dist', 'node.js')), 'build @agentd/dispatch first').toBe(true);
    const child = spawn(process.execPath, [fixture], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    child.stdin.write('{"jsonrpc":"2.0","id":"slow","method":"tools/call","params":{"name":"slow"}}\n');
    child.stdin.write(
      '{"jsonrpc":"2.0","id":"g","method":"tools/call","params":{"name":"greet","arguments":{"name":"Ada"}}}\n',
    );
    child.stdin.write('{"jsonrpc":"2.0","id":"c","method":"tools/call","params":{"name":"confirm"}}\n');
    child.stdin.write('garbage\n');
    child.stdin.end('{"jsonrpc":"2.0","id":"i","method":"initialize"}\n');
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code).toBe(0);
    const messages = stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(messages.map((m) => m.id)).toHaveLength(5);
    // `slow` waits for `greet`, which was sent after it: answers go out as they finish.
    const ids = messages.map((m) => m.id);
    expect(ids.indexOf('slow')).toBeGreaterThan(ids.indexOf('g'));
    const byId = new Map(messages.map((m) => [m.id, m]));
    expect(byId.get('g').result.content).toEqual([{ type: 'text', text: 'Hello, Ada!' }]);
    expect(byId.get('c').result).toMatchObject({
      resultType: 'input_required',
      requests: { ok: { method: 'elicitation/create' } },
    });
    expect(byId.get(null).error.code).toBe(-32700);
    expect(byId.get('i').error.message).toMatch(/initialize was removed by the stateless 2026-07-28/);
    expect(stderr).toContain('console.log from the handler');
    expect(stderr).toContain('stdin ended, exiting');
  });

  it('as a child process: a request whose handling rejects is answered -32603 and frees its slot', async () => {
    const fixture = join(here, 'test-support', 'mcp-stdio-rejecting-child.mjs');
    const child = spawn(process.execPath, [fixture], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    // maxInFlight 1: had the rejection kept its slot, nothing after it would be read.
    child.stdin.write('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"reject"}}\n');
    child.stdin.write('{"jsonrpc":"2.0","id":"r2","method":"tools/call","params":{"name":"reject"}}\n');
    child.stdin.end(
      '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":"still here"}}}\n',
    );
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code).toBe(0);
    const messages = stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(messages).toEqual([
      { jsonrpc: '2.0', id: 1, error: { code: -32603, message: 'Internal error' } },
      { jsonrpc: '2.0', id: 'r2', error: { code: -32603, message: 'Internal error' } },
      expect.objectContaining({
        id: 3,
        result: expect.objectContaining({ content: [{ type: 'text', text: 'still here' }] }),
      }),
    ]);
    expect(stderr).toContain('ContractServer.handle rejected; the request was answered -32603');
    expect(stderr).toMatch(/"internalErrors":2/);
    expect(stderr).toContain('handle blew up');
    expect(stderr).toContain('stdin ended, exiting');
  });
});

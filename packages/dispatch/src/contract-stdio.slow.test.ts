/** ContractServer on the core's stdio: NDJSON framing, limits and the child-process contract (stdout is protocol only). */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { silentLogger } from '@agentd/rpc-frame';
import { runCommand, scrubbedEnv } from '@agentd/test-support';
import { describe, expect, it } from 'vitest';
import { ContractServer, type ContractServerOptions } from './contract-server.js';
import { stdio } from './server-transport.js';

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

/** Serves `server` on the streams; resolves once stdin ended and every answer was written. */
async function serve(server: ContractServer, options: Parameters<typeof stdio>[0]): Promise<void> {
  const served = await server.connect(stdio(options));
  await served.closed;
}

function echoServer(options: ContractServerOptions = {}) {
  const server = new ContractServer({ logger: silentLogger, ...options });
  server.registerTool('echo', 'Echoes', { properties: { text: { type: 'string' } } }, (args) =>
    String(args.text),
  );
  return server;
}

describe('ContractServer over stdio', () => {
  it('answers each line, skips blank ones, and flushes a last line without a newline', async () => {
    const { stdin, stdout, messages } = streams();
    const served = serve(echoServer(), { stdin, stdout, halfCloseDrainMs: 5_000 });
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

  it('refuses an overlong line with -32600 and ends the session, as every core connection does', async () => {
    const { stdin, stdout, messages } = streams();
    const served = serve(echoServer(), { stdin, stdout, maxFrameBytes: 64 });
    stdin.write('not json\n');
    stdin.write(`{"jsonrpc":"2.0","id":"big","method":"tools/list","params":{"x":"${'y'.repeat(40)}`);
    stdin.write(`${'z'.repeat(200)}"}}\n`);
    await served;
    // The refusal is written as the frame is read; the parse error's answer may follow it.
    const codes = messages().map((m) => m.error?.code);
    expect(codes.sort((a, b) => a - b)).toEqual([-32700, -32600]);
    expect(messages().find((m) => m.error.code === -32600).error.message).toMatch(/Payload Too Large/);
  });

  it('holds at most maxInFlight requests at once, and answers them all', async () => {
    const server = new ContractServer({ logger: silentLogger, core: { maxInFlightPerConnection: 2 } });
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
    const served = serve(server, { stdin, stdout, halfCloseDrainMs: 5_000 });
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
    const input = [
      '{"jsonrpc":"2.0","id":"slow","method":"tools/call","params":{"name":"slow"}}\n',
      '{"jsonrpc":"2.0","id":"g","method":"tools/call","params":{"name":"greet","arguments":{"name":"Ada"}}}\n',
      '{"jsonrpc":"2.0","id":"c","method":"tools/call","params":{"name":"confirm"}}\n',
      'garbage\n',
      '{"jsonrpc":"2.0","id":"i","method":"initialize"}\n',
    ].join('');
    const { code, stdout, stderr } = await runCommand(
      process.execPath,
      [fixture],
      here,
      scrubbedEnv(),
      input,
    );
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

  it('answers id-less requests with id null, each in its own slot, and keeps them apart', async () => {
    const server = new ContractServer({ logger: silentLogger, core: { maxInFlightPerConnection: 1 } });
    server.registerTool('echo', 'Echoes', { properties: { text: { type: 'string' } } }, async (args) => {
      await new Promise((resolve) => setImmediate(resolve));
      return String(args.text);
    });
    const { stdin, stdout, messages } = streams();
    const served = serve(server, { stdin, stdout, halfCloseDrainMs: 5_000 });
    stdin.write(
      '{"jsonrpc":"2.0","method":"tools/call","params":{"name":"echo","arguments":{"text":"one"}}}\n',
    );
    stdin.write(
      '{"jsonrpc":"2.0","id":null,"method":"tools/call","params":{"name":"echo","arguments":{"text":"two"}}}\n',
    );
    stdin.end('{"jsonrpc":"2.0","id":7}\n');
    await served;
    const answers = messages();
    expect(answers, JSON.stringify(answers)).toHaveLength(3);
    expect(
      answers.filter((m) => m.id === null).map((m) => m.result?.content?.[0]?.text),
      JSON.stringify(answers),
    ).toEqual(['one', 'two']);
    expect(answers.find((m) => m.id === 7)).toMatchObject({ error: { code: -32600 } });
  });
});

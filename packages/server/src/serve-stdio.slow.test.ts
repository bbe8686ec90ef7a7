/** serveStdio: in-process over real pipes, and as a real child process speaking on its own stdio. */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { PassThrough, type Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { memoryLogger, runCommand, scrubbedEnv, testHandler } from '@agentd/test-support';
import { describe, expect, it, vi } from 'vitest';
import { openStdio, serveStdio } from './serve-stdio.js';
import { createServerCore } from './server-core.js';

const here = dirname(fileURLToPath(import.meta.url));

describe('serveStdio', () => {
  it('serves both eras with origin stdio and resolves on stdin EOF after answering', async () => {
    const core = createServerCore({
      handler: testHandler(),
      serverInfo: { name: 't', version: '1' },
      logger: memoryLogger(),
    });
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    let output = '';
    stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    const served = serveStdio(core, { stdin, stdout });
    stdin.write(
      '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{}}}\n',
    );
    stdin.write('{"jsonrpc":"2.0","id":2,"method":"test/slow","params":{"ms":50}}\n');
    stdin.end(
      `${JSON.stringify({
        jsonrpc: '2.0',
        id: 3,
        method: 'test/echo',
        params: {
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientCapabilities': {},
          },
        },
      })}\n`,
    );
    await served;
    const lines = output
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines.map((m) => m.id).sort()).toEqual([1, 2, 3]);
    const echo = lines.find((m) => m.id === 3);
    expect(echo.result).toMatchObject({ era: 'modern', origin: 'stdio', transport: 'stdio' });
  });

  it('openStdio: shutdown() ends listen streams with their final result and resolves closed', async () => {
    const core = createServerCore({
      handler: testHandler(),
      serverInfo: { name: 't', version: '1' },
      logger: memoryLogger(),
    });
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    let output = '';
    stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    const handle = openStdio(core, { stdin, stdout });
    expect(handle.peer).toMatchObject({ origin: 'stdio', transport: 'stdio' });
    stdin.write(
      `${JSON.stringify({
        jsonrpc: '2.0',
        id: 'L',
        method: 'subscriptions/listen',
        params: {
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientCapabilities': {},
          },
          notifications: { toolsListChanged: true },
        },
      })}\n`,
    );
    await vi.waitFor(
      () => {
        expect(handle.connection.listenCount, 'the listen stream to open').toBeGreaterThan(0);
      },
      { timeout: 10_000, interval: 5 },
    );
    await handle.shutdown(1_000);
    await handle.closed;
    const lines = output
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines.map((m) => m.method ?? m.id)).toEqual(['notifications/subscriptions/acknowledged', 'L']);
    expect(lines[1].result.resultType).toBe('complete');
  });

  it('as a child process: stdout carries only protocol, logs go to stderr, exit 0 on EOF', async () => {
    const fixture = join(here, 'test-support', 'stdio-child.mjs');
    const built = join(here, '..', 'dist', 'index.js');
    expect(existsSync(built), 'run `turbo run build --filter=@agentd/server...` first').toBe(true);
    const input = [
      '{"jsonrpc":"2.0","id":"i","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{}}}\n',
      'garbage\n',
      '{"jsonrpc":"2.0","id":"boom","method":"boom"}\n',
      '{"jsonrpc":"2.0","id":"p","method":"ping"}\n',
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
    expect(messages.every((m) => m.jsonrpc === '2.0')).toBe(true);
    // Requests run concurrently, so answers may come in any order.
    expect(new Set(messages.map((m) => m.id))).toEqual(new Set(['i', null, 'boom', 'p']));
    expect(messages.find((m) => m.id === 'boom').error).toEqual({ code: -32603, message: 'Internal error' });
    expect(stderr).toContain('console.log from the handler');
    expect(stderr).toContain('kaboom detail');
  });

  it('as a child process: closing stdin cancels the in-flight request at once (its signal aborts)', async () => {
    const fixture = join(here, 'test-support', 'official-child.mjs');
    const child = spawn(process.execPath, [fixture], { stdio: ['pipe', 'pipe', 'pipe'] });
    const stdout = collect(child.stdout);
    const stderr = collect(child.stderr);
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    child.stdin.write(
      `${JSON.stringify({
        jsonrpc: '2.0',
        id: 'run',
        method: 'tools/call',
        params: { name: 'slow', arguments: {}, _meta: { progressToken: 't' } },
      })}\n`,
    );
    // The handler started (it reports progress first); then the client goes away.
    await stdout.seen('notifications/progress');
    child.stdin.end();
    // The default drain would keep the request running for 10 s; the cancel comes with the EOF.
    await stderr.seen('aborted "run"');
    expect(await exited).toBe(0);
  });
});

/** A child's output as it arrives: `seen(text)` resolves once `text` is in it, rejects if the stream ends first. */
function collect(stream: Readable): { seen(text: string): Promise<void> } {
  let all = '';
  stream.on('data', (chunk: Buffer) => {
    all += chunk.toString('utf8');
  });
  return {
    seen: (text) =>
      new Promise((resolve, reject) => {
        const check = (): void => {
          if (!all.includes(text)) return;
          stream.off('data', check);
          stream.off('end', ended);
          resolve();
        };
        const ended = (): void =>
          reject(new Error(`the stream ended before ${JSON.stringify(text)}: ${all}`));
        stream.on('data', check);
        stream.once('end', ended);
        check();
      }),
  };
}

/** Internal errors in the transport reach the core's logger; the client sees only the generic -32603. */
import { createServerCore, type Logger } from '@agentd/server';
import { toolHandler } from '@agentd/test-support';
import { afterEach, describe, expect, it } from 'vitest';
import { serveHttp } from './node.js';
import { modernPost } from './test-support/harness.js';

type LogRecord = { level: string; message: string; fields: Record<string, unknown> | undefined };

function recordingLogger(): Logger & { records: LogRecord[] } {
  const records: LogRecord[] = [];
  const at = (level: string) => (message: string, fields?: Record<string, unknown>) =>
    void records.push({ level, message, fields });
  return { records, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('internal errors', () => {
  it('are logged through the core logger and answered 500 with the generic text only', async () => {
    const logger = recordingLogger();
    const core = createServerCore({
      handler: toolHandler(),
      serverInfo: { name: 'internal-errors', version: '1.0.0' },
      logger,
    });
    const secret = 'the lookup table at 0xdeadbeef is gone';
    // An embedder callback that throws is a bug on the server side, never the client's fault.
    const http = await serveHttp(core, {
      toolParamHeaders: () => {
        throw new Error(secret);
      },
    });
    cleanups.push(
      () => http.close(500),
      () => core.close(),
    );
    const url = `http://localhost:${http.address.port}/mcp`;
    const response = await modernPost(url, 'tools/call', { name: 'echo', arguments: { text: 'x' } });
    expect(response.status).toBe(500);
    const text = await response.text();
    expect(JSON.parse(text)).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32603, message: 'Internal error' },
    });
    expect(text).not.toContain('0xdeadbeef');
    const errors = logger.records.filter((r) => r.level === 'error');
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({
      message: 'http request failed with an internal error',
      fields: { method: 'POST', path: '/mcp', error: expect.objectContaining({ message: secret }) },
    });
    // The endpoint keeps serving.
    const next = await modernPost(url, 'tools/list');
    expect(next.status).toBe(200);
    await next.text();
  });
});

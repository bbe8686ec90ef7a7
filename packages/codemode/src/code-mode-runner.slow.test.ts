import { LocalError } from '@agentd/rpc-frame';
import { afterAll, describe, expect, test } from 'vitest';
import { CodeModeRunner } from './code-mode-runner.js';
import type { ExecuteOutcome, ExecuteRequest } from './execute-types.js';
import { catalogueBridge, OPERATIONS } from './test-support/catalogue.js';

const runner = new CodeModeRunner({ workers: 2, limits: { cpuMs: 2_000, wallMs: 10_000 } });
afterAll(() => runner.close());

function run(code: string, extra: Partial<ExecuteRequest> = {}): Promise<ExecuteOutcome> {
  const bridge = catalogueBridge();
  return runner.execute({ code, namespace: 'agentd', operations: OPERATIONS, call: bridge.call, ...extra });
}

function errorOf(outcome: ExecuteOutcome): { code: string; message: string } {
  if (outcome.ok) throw new Error(`expected a failure, got ${JSON.stringify(outcome.value)}`);
  return outcome.error;
}

describe('origin behaviour', () => {
  test('returns the script value', async () => {
    expect(await run('return 21 * 2;')).toEqual({ ok: true, value: 42, logs: [], truncated: false });
  });

  test('no return gives null', async () => {
    expect(await run('const x = 1;')).toMatchObject({ ok: true, value: null });
  });

  test('chains calls in one script', async () => {
    const bridge = catalogueBridge();
    const outcome = await run(
      `const all = await agentd.query('GetAllServers', {});
       const first = await agentd.query('servers.get', { id: all.items[0].id });
       return { count: all.count, name: first.name };`,
      { call: bridge.call },
    );
    expect(outcome).toMatchObject({ ok: true, value: { count: 2, name: 'alpha' } });
    expect(bridge.calls.map((c) => `${c.kind}_${c.id}`)).toEqual([
      'query_GetAllServers',
      'query_servers.get',
    ]);
    expect(bridge.calls[1]?.args).toEqual({ id: 's1' });
  });

  test('a denied operation is caught in JS with the exact message', async () => {
    const bridge = catalogueBridge({ hidden: new Set(['query_GetAllServers']) });
    const outcome = await run(
      `try { await agentd.query('GetAllServers', {}); return 'reached'; }
       catch (e) { return { message: e.message, isError: e instanceof Error }; }`,
      { call: bridge.call },
    );
    expect(outcome).toMatchObject({
      ok: true,
      value: { message: 'Unknown operation: query_GetAllServers', isError: true },
    });
  });

  test('an infinite loop is stopped by the CPU deadline', async () => {
    const outcome = await run('while (true) {}', { limits: { cpuMs: 200 } });
    expect(errorOf(outcome)).toEqual({
      code: 'cpu_deadline',
      message: 'Script exceeded its CPU deadline of 200 ms',
    });
  });

  test('objects round-trip', async () => {
    const value = { a: [1, 'x', null, true, { b: 2.5, c: 'é€😀' }], d: { e: {} } };
    expect(await run(`return ${JSON.stringify(value)};`)).toMatchObject({ ok: true, value });
  });
});

describe('the API object', () => {
  test('typed methods call their operation', async () => {
    const bridge = catalogueBridge();
    const outcome = await run(
      `const s = await agentd.subagent.spawn({ instruction: 'hi' });
       const one = await agentd.servers.get({ id: 's2' });
       const stats = await agentd.ServerStats();
       return [s.state, one.name, stats.up];`,
      { call: bridge.call },
    );
    expect(outcome).toMatchObject({ ok: true, value: ['running', 'beta', 1] });
    expect(bridge.calls.map((c) => [c.kind, c.id, c.args])).toEqual([
      ['command', 'subagent.spawn', { instruction: 'hi' }],
      ['query', 'servers.get', { id: 's2' }],
      ['report', 'ServerStats', {}],
    ]);
  });

  test('the namespace is configurable', async () => {
    const outcome = await run('return [typeof acme.query, typeof agentd];', { namespace: 'acme' });
    expect(outcome).toMatchObject({ ok: true, value: ['function', 'undefined'] });
  });

  test('Promise.all runs calls together and try/catch sees each failure', async () => {
    const outcome = await run(`
      const ids = ['s1', 's2', 'nope'];
      const results = await Promise.all(ids.map(async (id) => {
        try { return (await agentd.servers.get({ id })).name; } catch (e) { return 'error: ' + e.message; }
      }));
      return results;`);
    expect(outcome).toMatchObject({ ok: true, value: ['alpha', 'beta', 'error: No server nope'] });
  });

  test('an uncaught operation error ends the script as operation_error', async () => {
    const outcome = await run(`await agentd.query('Missing', {}); return 1;`);
    expect(errorOf(outcome)).toEqual({
      code: 'operation_error',
      message: 'Unknown operation: query_Missing',
    });
  });

  test('a string code on a host error reaches the script', async () => {
    const outcome = await run(
      `try { await agentd.command('x', {}); } catch (e) { return [e.message, e.code]; }`,
      {
        call: async () => {
          throw new LocalError('limit_reached', 'Too many subagents');
        },
      },
    );
    expect(outcome).toMatchObject({ ok: true, value: ['Too many subagents', 'limit_reached'] });
  });

  test('the bridge is called for every call, so filters are re-checked each time', async () => {
    const hidden = new Set<string>();
    const bridge = catalogueBridge({ hidden });
    const outcome = await run(
      `const first = await agentd.query('GetAllServers', {});
       await agentd.command('subagent.spawn', { instruction: 'revoke' });
       try { await agentd.query('GetAllServers', {}); return 'still visible'; }
       catch (e) { return [first.count, e.message]; }`,
      {
        call: async (kind, id, args, context) => {
          if (id === 'subagent.spawn') hidden.add('query_GetAllServers');
          return bridge.call(kind, id, args, context);
        },
      },
    );
    expect(outcome).toMatchObject({ ok: true, value: [2, 'Unknown operation: query_GetAllServers'] });
    expect(bridge.calls).toHaveLength(3);
  });

  test('arguments default to {} and non-JSON arguments fail inside the script', async () => {
    const bridge = catalogueBridge();
    const outcome = await run(
      `await agentd.report('ServerStats');
       try { await agentd.report('ServerStats', { n: 10n }); } catch (e) { return e instanceof TypeError; }`,
      { call: bridge.call },
    );
    expect(outcome).toMatchObject({ ok: true, value: true });
    expect(bridge.calls.map((c) => c.args)).toEqual([{}]);
  });

  test('console lines are captured with their level', async () => {
    const outcome = await run(
      `console.log('a', 1, { b: [2] }); console.warn('careful'); console.error(new TypeError('bad')); return null;`,
    );
    expect(outcome.logs).toEqual(['a 1 {"b":[2]}', '[warn] careful', '[error] TypeError: bad']);
  });

  test('log lines beyond the limit are counted, not kept', async () => {
    const outcome = await run(
      `for (let i = 0; i < 10; i++) console.log('line ' + i + ' ' + 'x'.repeat(100));`,
      {
        limits: { maxLogLines: 3, maxLogLineBytes: 20 },
      },
    );
    expect(outcome.logs).toHaveLength(4);
    expect(outcome.logs[0]).toBe('line 0 xxxxxxxxxxxxx…');
    expect(outcome.logs[3]).toBe('… 7 more log lines dropped');
  });

  test('an async arrow function and a markdown fence are accepted', async () => {
    expect(await run('async () => { return 5; }')).toMatchObject({ ok: true, value: 5 });
    expect(await run('```js\nconst a = 2;\nreturn a * 3;\n```')).toMatchObject({ ok: true, value: 6 });
  });

  test('each execution gets a fresh instance', async () => {
    await run('globalThis.leak = 41; Object.prototype.polluted = true; return 1;');
    expect(await run('return [typeof leak, ({}).polluted];')).toMatchObject({
      ok: true,
      value: ['undefined', null],
    });
  });
});

describe('errors', () => {
  test('a syntax error names its line', async () => {
    const error = errorOf(await run('const a = 1;\nconst b = ;\nreturn a;'));
    expect(error.code).toBe('syntax_error');
    expect(error.message).toMatch(/^SyntaxError: .+ \(line 2\)$/);
  });

  test('a thrown error is a script_error with its line', async () => {
    const error = errorOf(await run('const a = 1;\n\nthrow new RangeError("too far");'));
    expect(error).toEqual({ code: 'script_error', message: 'RangeError: too far (line 3)' });
  });

  test('a thrown primitive is reported', async () => {
    expect(errorOf(await run('throw "plain";'))).toEqual({ code: 'script_error', message: 'Uncaught plain' });
  });

  test('a result that cannot be serialized is a script_error', async () => {
    const error = errorOf(await run('const a = {}; a.self = a; return a;'));
    expect(error.code).toBe('script_error');
    expect(error.message).toMatch(/circular/i);
  });

  test('a promise that can never settle ends the script', async () => {
    const error = errorOf(await run('await new Promise(() => {}); return 1;'));
    expect(error).toMatchObject({ code: 'script_error', message: expect.stringMatching(/can never settle/) });
  });

  test('code beyond maxCodeBytes is refused', async () => {
    expect(errorOf(await run('return 1;'.repeat(20), { limits: { maxCodeBytes: 50 } })).code).toBe(
      'code_too_large',
    );
  });

  test('a bad namespace or limit is a programming error', async () => {
    await expect(run('return 1', { namespace: 'not valid' })).rejects.toMatchObject({
      code: 'invalid_namespace',
    });
    await expect(run('return 1', { namespace: 'JSON' })).rejects.toMatchObject({ code: 'invalid_namespace' });
    await expect(run('return 1', { limits: { memoryBytes: 1024 } })).rejects.toMatchObject({
      code: 'invalid_limits',
    });
  });
});

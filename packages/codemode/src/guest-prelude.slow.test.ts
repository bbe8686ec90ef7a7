import { afterAll, describe, expect, test } from 'vitest';
import { CodeModeRunner } from './code-mode-runner.js';
import type { ExecuteOutcome, ExecuteRequest } from './execute-types.js';
import { catalogueBridge, OPERATIONS } from './test-support/catalogue.js';

const runner = new CodeModeRunner({
  workers: 2,
  limits: { cpuMs: 2_000, wallMs: 10_000, memoryBytes: 48 * 1024 * 1024 },
});
afterAll(() => runner.close());

function run(code: string, extra: Partial<ExecuteRequest> = {}): Promise<ExecuteOutcome> {
  const bridge = catalogueBridge();
  return runner.execute({ code, namespace: 'agentd', operations: OPERATIONS, call: bridge.call, ...extra });
}

async function value(code: string, extra: Partial<ExecuteRequest> = {}): Promise<unknown> {
  const outcome = await run(code, extra);
  if (!outcome.ok) throw new Error(`${outcome.error.code}: ${outcome.error.message}`);
  return outcome.value;
}

const HOST_NAMES = [
  'process',
  'require',
  'module',
  'global',
  'Buffer',
  'setTimeout',
  'setInterval',
  'setImmediate',
  'queueMicrotask',
  'fetch',
  'XMLHttpRequest',
  'WebSocket',
  'WebAssembly',
  'SharedArrayBuffer',
  'Atomics',
  'importScripts',
  'std',
  'os',
  'scriptArgs',
  'print',
  'bridge',
  '__bridge',
  '__host_call',
  'postMessage',
];

describe('the guest reaches nothing of the host', () => {
  test('no host globals exist, directly or through constructor chains', async () => {
    const names = JSON.stringify(HOST_NAMES);
    const result = (await value(`
      const names = ${names};
      const viaGlobal = names.filter((n) => typeof globalThis[n] !== 'undefined');
      const viaFunction = names.filter((n) => Function('return typeof ' + n)() !== 'undefined');
      const viaChain = agentd.query.constructor.constructor('return Object.getOwnPropertyNames(globalThis)')();
      const viaError = (() => { try { null.x; } catch (e) { return e.constructor.constructor('return typeof process')(); } })();
      return { viaGlobal, viaFunction, leaked: viaChain.filter((n) => names.includes(n)), viaError };`)) as Record<
      string,
      unknown
    >;
    expect(result).toEqual({ viaGlobal: [], viaFunction: [], leaked: [], viaError: 'undefined' });
  });

  test('the bridge never appears as a global and the API holds no host object', async () => {
    const result = await value(`
      const own = Object.getOwnPropertyNames(globalThis).filter((n) => /bridge|host|call/i.test(n));
      const api = Object.getOwnPropertyNames(agentd);
      const source = String(agentd.query);
      return { own, api, native: /native code/.test(source) };`);
    expect(result).toEqual({
      own: [],
      api: ['query', 'view', 'report', 'command', 'GetAllServers', 'servers', 'subagent', 'ServerStats'],
      native: false,
    });
  });

  test('operation errors are guest errors whose constructors stay in the guest', async () => {
    const result = await value(`
      try { await agentd.query('Nope', {}); }
      catch (e) { return [e instanceof Error, e.constructor === Error, e.constructor.constructor('return typeof require')()]; }`);
    expect(result).toEqual([true, true, 'undefined']);
  });

  test('eval and Function run inside the sandbox only', async () => {
    const result = await value(`
      const a = eval('1 + 1');
      const b = new Function('a', 'b', 'return a * b')(3, 4);
      const c = (0, eval)('typeof process');
      let d; try { new Function('return process.exit(1)')(); } catch (e) { d = e.name; }
      return [a, b, c, d];`);
    expect(result).toEqual([2, 12, 'undefined', 'ReferenceError']);
  });
});

describe('tampering stays in the guest', () => {
  test('prototype pollution of the bridge path does not change what crosses it', async () => {
    const bridge = catalogueBridge();
    const result = await value(
      `
      JSON.parse = () => ({ value: 'forged' });
      Promise.prototype.then = function () { throw new Error('then hijacked'); };
      Array.prototype.map = () => ['hijacked'];
      Function.prototype.call = () => 'hijacked';
      Function.prototype.apply = () => 'hijacked';
      Reflect.apply = () => 'hijacked';
      WeakSet.prototype.has = () => true;
      Object.defineProperty = () => { throw new Error('hijacked'); };
      Object.freeze = () => { throw new Error('hijacked'); };
      Array.prototype.push = () => { throw new Error('hijacked'); };
      const r = await agentd.servers.get({ id: 's2' });
      let missing;
      try { await agentd.query('servers.get', { id: 'none' }); } catch (e) { missing = e.message; }
      console.log('still', 'logging');
      return [r.name, missing];`,
      { call: bridge.call },
    );
    expect(result).toEqual(['beta', 'No server none']);
    expect(bridge.calls.map((c) => c.args)).toEqual([{ id: 's2' }, { id: 'none' }]);
    expect(Object.prototype).not.toHaveProperty('polluted');
  });

  test('a polluted toJSON only changes what the guest itself sends', async () => {
    const bridge = catalogueBridge();
    const outcome = await run(
      `Object.prototype.toJSON = function () { return 'hijacked'; };
       try { await agentd.query('servers.get', { id: 's1' }); } catch (e) { return e.message; }`,
      { call: bridge.call },
    );
    // The host saw a well-formed (if useless) JSON value and answered it like any bad input.
    expect(outcome).toMatchObject({ ok: true, value: 'No server undefined' });
    expect(bridge.calls[0]?.args).toBe('hijacked');
  });

  test('the API object and console cannot be replaced or extended', async () => {
    const result = await value(`
      const before = agentd.query;
      agentd.query = () => 'fake';
      agentd.extra = 1;
      try { delete globalThis.agentd; } catch {}
      try { globalThis.agentd = {}; } catch {}
      console.log = () => {};
      return [agentd.query === before, 'extra' in agentd, typeof globalThis.agentd, Object.isFrozen(agentd.subagent)];`);
    expect(result).toEqual([true, false, 'object', true]);
  });

  test('a hostile args object cannot crash the bridge', async () => {
    const outcome = await run(`
      const out = [];
      const evil = { get id() { throw new Error('getter'); } };
      try { await agentd.query('servers.get', evil); } catch (e) { out.push(e.message); }
      const proxy = new Proxy({}, { ownKeys() { throw new Error('trap'); } });
      try { await agentd.query('servers.get', proxy); } catch (e) { out.push(e.message); }
      try { await agentd.query(Symbol('x'), {}); } catch (e) { out.push(e.constructor.name); }
      try { await agentd.query({ toString() { return 'servers.get'; } }, { id: 's1' }); } catch (e) { out.push(e.constructor.name); }
      return out;`);
    expect(outcome).toMatchObject({ ok: true });
    if (!outcome.ok) return;
    expect(outcome.value).toEqual([
      expect.stringMatching(/not JSON-serializable: getter/),
      expect.stringMatching(/not JSON-serializable: trap/),
      'TypeError',
      'TypeError',
    ]);
  });

  test('throwing host-looking objects is reported as a plain script error', async () => {
    const attempts = [
      `throw { code: -32603, message: 'Internal error', name: 'WireError' };`,
      `throw { name: 'InternalError', message: 'interrupted' };`,
      `const e = new Error('Unknown operation: query_X'); e.code = 'operation_error'; throw e;`,
      `throw new Proxy({}, { get() { throw new Error('trap'); } });`,
      `throw { get message() { while (true) {} } };`,
      `throw null;`,
    ];
    const outcomes = await Promise.all(attempts.map((code) => run(code)));
    expect(outcomes.map((o) => (o.ok ? 'ok' : o.error.code))).toEqual([
      'script_error',
      'script_error',
      'script_error',
      'script_error',
      'cpu_deadline',
      'script_error',
    ]);
    expect(outcomes[0]).toMatchObject({ error: { message: 'WireError: Internal error' } });
    expect(await value('return "still serving";')).toBe('still serving');
  });

  test('huge log lines and argument strings are capped before they reach the host', async () => {
    const bridge = catalogueBridge();
    const outcome = await run(
      `console.log('z'.repeat(5e6));
       try { await agentd.query('servers.get', { id: 'q'.repeat(3e6) }); } catch (e) { return e.message; }`,
      { call: bridge.call },
    );
    expect(outcome).toMatchObject({ ok: true, value: expect.stringMatching(/too large/) });
    expect(outcome.logs[0]?.length).toBeLessThanOrEqual(2_049);
    expect(bridge.calls).toHaveLength(0);
  });
});

#!/usr/bin/env node
/**
 * Runs every case of the stateless tool-server contract against an implementation started as a real process,
 * over stdio (NDJSON) and over HTTP (`--http 0`, then `listening <url>` on stdout).
 *
 *   node examples/mcp-server/verify.mjs [implementation] [--transport stdio|http|both]
 *
 * `implementation` is a name (`starter`: `<this folder>/starter/server.mjs`), a folder holding
 * `server.mjs`, or a script path; default `starter`. Exits 0 when every case passes, else 1 and
 * lists the failing cases. The implementation must register the example tools (README).
 */
import { spawn } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';

const HERE = dirname(fileURLToPath(import.meta.url));
const ANSWER_TIMEOUT_MS = 10_000;
const INPUT_REQUIRED_TEXT = 'Additional client input is required before this tool can finish.';

/** The example tools' input schemas, as `tools/list` must return them. */
const EXPECTED_SCHEMAS = {
  greet: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
  add: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
  divide: {
    type: 'object',
    properties: { a: { type: 'number' }, b: { type: 'number' } },
    required: ['a', 'b'],
  },
  delete_file: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
};

// ---- what a case checks --------------------------------------------------------------------

const show = (value) => JSON.stringify(value);

/** A JSON-RPC error with `code` and exactly `id`. */
function isError(code, id, message) {
  return (response) => {
    if (response?.jsonrpc !== '2.0') return `jsonrpc is ${show(response?.jsonrpc)}, not "2.0"`;
    if (!isDeepStrictEqual(response.id, id)) return `id is ${show(response.id)}, expected ${show(id)}`;
    if (response.error?.code !== code) return `expected error ${code}, got ${show(response)}`;
    if (typeof response.error.message !== 'string') return 'error.message is not a string';
    if (message && !message.test(response.error.message)) {
      return `error.message ${show(response.error.message)} does not match ${message}`;
    }
    return undefined;
  };
}

/** A result with exactly `id`, then `check(result)`. */
function isResult(id, check = () => undefined) {
  return (response) => {
    if (response?.jsonrpc !== '2.0') return `jsonrpc is ${show(response?.jsonrpc)}, not "2.0"`;
    if (!isDeepStrictEqual(response.id, id)) return `id is ${show(response.id)}, expected ${show(id)}`;
    if (response.error !== undefined) return `expected a result, got error ${show(response.error)}`;
    if (typeof response.result !== 'object' || response.result === null) return 'result is not an object';
    return check(response.result);
  };
}

const text = (value) => [{ type: 'text', text: value }];

/** A tool result whose content is exactly one text block, with `isError` true or absent/false. */
function toolText(expected, { error = false } = {}) {
  return (result) => {
    if (!isDeepStrictEqual(result.content, text(expected))) {
      return `content is ${show(result.content)}, expected ${show(text(expected))}`;
    }
    if (error && result.isError !== true) return 'isError is not true';
    if (!error && result.isError === true) return 'isError is true on a success';
    return undefined;
  };
}

const request = (id, method, params) =>
  params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params };
const call = (id, name, args, extra = {}) => request(id, 'tools/call', { name, arguments: args, ...extra });

// ---- the cases: every rule of the contract, in its order ----------------------------------

const CASES = [
  { name: 'invalid request: a number', send: 42, expect: isError(-32600, null) },
  { name: 'invalid request: an array', send: [1, 2], expect: isError(-32600, null) },
  { name: 'invalid request: a string', send: 'tools/list', expect: isError(-32600, null) },
  { name: 'invalid request: null', send: null, expect: isError(-32600, null) },
  {
    name: 'invalid request: no method (id kept)',
    send: { jsonrpc: '2.0', id: 7 },
    expect: isError(-32600, 7),
  },
  {
    name: 'invalid request: jsonrpc "1.0" (id kept)',
    send: { jsonrpc: '1.0', id: 'a', method: 'tools/list' },
    expect: isError(-32600, 'a'),
  },
  {
    name: 'invalid request: no jsonrpc (id kept)',
    send: { id: 3, method: 'tools/list' },
    expect: isError(-32600, 3),
  },
  { name: 'id preserved: string', send: request('req-abc', 'tools/list'), expect: isResult('req-abc') },
  { name: 'id preserved: number', send: request(99, 'tools/list'), expect: isResult(99) },
  { name: 'unknown method: -32601', send: request(1, 'resources/list'), expect: isError(-32601, 1) },
  {
    name: 'initialize: -32601, removed by the stateless 2026-07-28 specification',
    send: request(2, 'initialize', {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'verify', version: '1' },
    }),
    expect: isError(-32601, 2, /removed[\s\S]*stateless[\s\S]*2026-07-28|2026-07-28[\s\S]*removed/i),
  },
  {
    name: 'version: request _meta.protocolVersion other than 2026-07-28 is -32600',
    send: { ...request(3, 'tools/list'), _meta: { protocolVersion: '2025-06-18' } },
    expect: isError(-32600, 3),
  },
  {
    name: 'version: params._meta.protocolVersion other than 2026-07-28 is -32600',
    send: request(4, 'tools/call', {
      name: 'greet',
      arguments: { name: 'Ada' },
      _meta: { protocolVersion: '2025-11-25' },
    }),
    expect: isError(-32600, 4),
  },
  {
    name: 'version: _meta.protocolVersion 2026-07-28 is served (no handshake)',
    send: { ...request(5, 'tools/list'), _meta: { protocolVersion: '2026-07-28' } },
    expect: isResult(5),
  },
  {
    name: 'tools/list: every tool as {name, description, inputSchema}',
    send: request(6, 'tools/list'),
    expect: isResult(6, (result) => {
      if (!Array.isArray(result.tools)) return 'result.tools is not an array';
      for (const [name, schema] of Object.entries(EXPECTED_SCHEMAS)) {
        const tool = result.tools.find((entry) => entry?.name === name);
        if (!tool) return `tool ${name} is not listed`;
        if (typeof tool.description !== 'string') return `${name}.description is not a string`;
        if (!isDeepStrictEqual(tool.inputSchema, schema)) {
          return `${name}.inputSchema is ${show(tool.inputSchema)}, expected ${show(schema)}`;
        }
      }
      for (const tool of result.tools) {
        const keys = Object.keys(tool).sort();
        if (!isDeepStrictEqual(keys, ['description', 'inputSchema', 'name'])) {
          return `tool ${show(tool.name)} has keys ${show(keys)}`;
        }
      }
      return undefined;
    }),
  },
  {
    name: 'tools/call: success is str(output) as text',
    send: call(7, 'greet', { name: 'Ada' }),
    expect: isResult(7, toolText('Hello, Ada!')),
  },
  {
    name: 'tools/call: a non-string output is str(output)',
    send: call(8, 'add', { a: 2, b: 3 }),
    expect: isResult(8, toolText('5')),
  },
  {
    name: 'tools/call: unregistered tool is isError "Tool not found"',
    send: call(9, 'no_such_tool', {}),
    expect: isResult(9, toolText('Tool not found', { error: true })),
  },
  {
    name: 'tools/call: missing required argument is isError "Missing required argument: <arg>"',
    send: call(10, 'add', { a: 1 }),
    expect: isResult(10, toolText('Missing required argument: b', { error: true })),
  },
  {
    name: 'tools/call: InputRequired is resultType input_required with requests and the fixed text',
    send: call(11, 'delete_file', { path: 'notes.txt' }),
    expect: isResult(11, (result) => {
      if (result.resultType !== 'input_required') return `resultType is ${show(result.resultType)}`;
      const requests = [{ id: 'confirm', prompt: "Type 'yes' to delete notes.txt." }];
      if (!isDeepStrictEqual(result.requests, requests)) return `requests is ${show(result.requests)}`;
      if (!isDeepStrictEqual(result.content, text(INPUT_REQUIRED_TEXT))) {
        return `content is ${show(result.content)}`;
      }
      return undefined;
    }),
  },
  {
    name: 'tools/call: the retry with params.inputResponses reaches handler(arguments, inputResponses)',
    send: call(12, 'delete_file', { path: 'notes.txt' }, { inputResponses: { confirm: 'yes' } }),
    expect: isResult(12, toolText('Deleted notes.txt')),
  },
  {
    name: 'tools/call: any other handler exception is isError "Error: <e>"',
    send: call(13, 'divide', { a: 1, b: 0 }),
    expect: isResult(13, toolText('Error: division by zero', { error: true })),
  },
  {
    name: 'transport: text that is not JSON is -32700',
    raw: '{"jsonrpc": "2.0", "id": 1, "method": ',
    expect: isError(-32700, null),
  },
];

// ---- transports --------------------------------------------------------------------------

function implementationPath(argument) {
  const candidate = resolve(argument);
  if (existsSync(candidate)) {
    return statSync(candidate).isDirectory() ? join(candidate, 'server.mjs') : candidate;
  }
  return join(HERE, argument, 'server.mjs');
}

function start(script, args) {
  const child = spawn(process.execPath, [script, ...args], { stdio: ['pipe', 'pipe', 'inherit'] });
  const exited = new Promise((resolveExit) =>
    child.once('exit', (code, signal) => resolveExit({ code, signal })),
  );
  return { child, exited };
}

/** Sends one line at a time and waits for the answer line (the contract answers every message). */
async function stdioSession(script) {
  const { child, exited } = start(script, []);
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  let gone;
  exited.then((outcome) => {
    gone = outcome;
  });
  return {
    async exchange(body) {
      if (gone) throw new Error(`the server exited (${show(gone)})`);
      child.stdin.write(`${body}\n`);
      const next = await withTimeout(lines.next(), 'no answer line');
      if (next.done) throw new Error('the server closed stdout');
      return JSON.parse(next.value);
    },
    async close() {
      child.stdin.end();
      const outcome = await withTimeout(exited, 'the server did not exit when stdin closed').catch(() => {
        child.kill('SIGKILL');
        return exited;
      });
      if (outcome.code !== 0 && outcome.signal !== 'SIGKILL') {
        throw new Error(`exited with ${show(outcome)} after stdin closed`);
      }
    },
  };
}

async function httpSession(script) {
  const { child, exited } = start(script, ['--http', '0']);
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  let url;
  try {
    const first = await withTimeout(lines.next(), 'no "listening <url>" line');
    url = /^listening (\S+)/.exec(first.value ?? '')?.[1];
    if (!url) throw new Error(`first stdout line is ${show(first.value)}, expected "listening <url>"`);
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
  return {
    async exchange(body) {
      const response = await withTimeout(
        fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body }),
        'no HTTP answer',
      );
      const answer = await response.text();
      if (response.status !== 200) throw new Error(`HTTP ${response.status}: ${answer}`);
      return JSON.parse(answer);
    },
    async close() {
      child.kill('SIGTERM');
      await withTimeout(exited, 'the server did not stop on SIGTERM').catch(() => child.kill('SIGKILL'));
    },
  };
}

function withTimeout(promise, what) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} within ${ANSWER_TIMEOUT_MS} ms`)), ANSWER_TIMEOUT_MS);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

async function runCases(transport, open, script) {
  const failures = [];
  let session;
  try {
    session = await open(script);
  } catch (error) {
    return CASES.map((entry) => ({ name: `[${transport}] ${entry.name}`, reason: error.message }));
  }
  for (const entry of CASES) {
    const name = `[${transport}] ${entry.name}`;
    let reason;
    try {
      const response = await session.exchange(entry.raw ?? JSON.stringify(entry.send));
      reason = entry.expect(response);
    } catch (error) {
      reason = error instanceof Error ? error.message : String(error);
    }
    if (reason === undefined) console.log(`ok    ${name}`);
    else {
      console.log(`FAIL  ${name}: ${reason}`);
      failures.push({ name, reason });
    }
  }
  try {
    await session.close();
  } catch (error) {
    console.log(`FAIL  [${transport}] shutdown: ${error.message}`);
    failures.push({ name: `[${transport}] shutdown`, reason: error.message });
  }
  return failures;
}

// ---- main -------------------------------------------------------------------------------

const argv = process.argv.slice(2);
const transportFlag = argv.indexOf('--transport');
const transport = transportFlag === -1 ? 'both' : argv[transportFlag + 1];
const positional =
  transportFlag === -1
    ? argv
    : argv.filter((_, index) => index !== transportFlag && index !== transportFlag + 1);
if (!['stdio', 'http', 'both'].includes(transport) || positional.length > 1) {
  console.error('usage: node verify.mjs [implementation] [--transport stdio|http|both]');
  process.exit(2);
}
const script = implementationPath(positional[0] ?? 'starter');
if (!existsSync(script)) {
  console.error(`verify: no implementation at ${script}`);
  process.exit(2);
}

console.log(`verifying ${script}`);
const failures = [];
if (transport !== 'http') failures.push(...(await runCases('stdio', stdioSession, script)));
if (transport !== 'stdio') failures.push(...(await runCases('http', httpSession, script)));
const total = CASES.length * (transport === 'both' ? 2 : 1);
if (failures.length === 0) {
  console.log(`all ${total} cases pass`);
} else {
  console.log(`\n${failures.length} failing case(s):`);
  for (const failure of failures) console.log(`  - ${failure.name}`);
  process.exitCode = 1;
}

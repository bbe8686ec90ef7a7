/**
 * The test agent: the example agent's commands plus the faults tests inject (crash, hang, garbage,
 * oversized output, a grandchild process…), so every supervisor path can be driven from a test.
 * Test-only: never shipped, never a default. Plain JavaScript, so Node runs it without a build.
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

const HELP =
  'commands: echo TEXT | uppercase TEXT | reverse TEXT | count [words] TEXT | sleep MS | log TEXT | fail [MESSAGE] | ' +
  'crash [CODE] | hang | hang-hard | big BYTES | env NAME | cwd | grandchild | garbage | history | help';

/** Messages of this session, for `history` (warm sessions remember their turns). */
const history = [];
/** Request ids the supervisor asked to cancel (`cancel` notification). */
const cancelled = new Set();

function send(message) {
  process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
}

function event(params) {
  send({ method: 'event', params });
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function countWords(text) {
  const trimmed = text.trim();
  return trimmed.length === 0 ? 0 : trimmed.split(/\s+/).length;
}

async function sleepWithProgress(id, ms) {
  const steps = 4;
  for (let step = 1; step <= steps; step += 1) {
    await sleep(ms / steps);
    if (cancelled.has(id)) return { error: { code: -32800, message: 'turn cancelled by the supervisor' } };
    event({
      type: 'progress',
      progress: step,
      total: steps,
      message: `slept ${Math.round((ms * step) / steps)} ms`,
    });
  }
  return { result: { text: `slept ${ms} ms` } };
}

/** Answers one instruction (a `run`) or message (a `turn`). */
async function answer(id, text) {
  const trimmed = text.trim();
  const space = trimmed.indexOf(' ');
  const command = (space === -1 ? trimmed : trimmed.slice(0, space)).toLowerCase();
  const rest = space === -1 ? '' : trimmed.slice(space + 1);
  switch (command) {
    case 'echo':
      return { result: { text: rest } };
    case 'uppercase':
      return { result: { text: rest.toUpperCase() } };
    case 'reverse':
      return { result: { text: [...rest].reverse().join('') } };
    case 'count': {
      // `count words TEXT` and `count TEXT` both count the words of TEXT.
      const subject = /^words\b/i.test(rest) ? rest.replace(/^words\s*/i, '') : rest;
      const words = countWords(subject);
      return { result: { text: `${words} words`, data: { words, characters: subject.length } } };
    }
    case 'sleep': {
      const ms = Number.parseInt(rest, 10);
      if (!Number.isFinite(ms) || ms < 0)
        return { error: { code: -32602, message: 'sleep needs milliseconds' } };
      return sleepWithProgress(id, ms);
    }
    case 'log':
      event({ type: 'log', level: 'info', message: rest });
      return { result: { text: `logged ${rest}` } };
    case 'fail':
      return { error: { code: -32000, message: rest || 'failed as instructed', data: { instructed: true } } };
    case 'crash':
      process.stderr.write('test agent: crashing as instructed\n');
      process.exit(Number.parseInt(rest, 10) || 3);
      return undefined;
    case 'hang':
      return undefined;
    case 'hang-hard':
      process.on('SIGTERM', () => process.stderr.write('test agent: ignoring SIGTERM\n'));
      event({ type: 'log', level: 'info', message: 'ignoring SIGTERM from now on' });
      return undefined;
    case 'big':
      return { result: { text: 'x'.repeat(Math.max(0, Number.parseInt(rest, 10) || 0)) } };
    case 'env':
      return { result: { text: process.env[rest] ?? '' } };
    case 'cwd':
      return { result: { text: process.cwd() } };
    case 'grandchild': {
      // Same process group as this agent: a cancel must take it down too.
      const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
      return { result: { text: String(child.pid), data: { pid: child.pid } } };
    }
    case 'garbage':
      process.stdout.write('this line is not JSON-RPC\n');
      return undefined;
    case 'history':
      return { result: { text: history.join('\n'), data: { turns: history.length } } };
    case 'help':
      return { result: { text: HELP } };
    default: {
      const words = countWords(trimmed);
      return { result: { text: `received ${words} words; ${HELP}`, data: { words } } };
    }
  }
}

async function handle(message) {
  const { id, method } = message;
  const params = typeof message.params === 'object' && message.params !== null ? message.params : {};
  if (id === undefined) {
    if (method === 'cancel') cancelled.add(params.id);
    return;
  }
  if (method === 'shutdown') {
    send({ id, result: {} });
    process.exit(0);
  }
  if (method !== 'run' && method !== 'turn') {
    send({ id, error: { code: -32601, message: `unknown method ${String(method)}` } });
    return;
  }
  const text = method === 'run' ? params.instruction : params.message;
  if (typeof text !== 'string') {
    send({
      id,
      error: {
        code: -32602,
        message: `${String(method)} needs a string ${method === 'run' ? 'instruction' : 'message'}`,
      },
    });
    return;
  }
  history.push(text);
  const reply = await answer(id, text);
  if (reply === undefined) return;
  if ('result' in reply && typeof params.turn === 'number') reply.result.turn = params.turn;
  send({ id, ...reply });
}

const lines = createInterface({ input: process.stdin, crlfDelay: Number.POSITIVE_INFINITY });
lines.on('line', (line) => {
  if (line.trim().length === 0) return;
  let message;
  try {
    message = JSON.parse(line);
  } catch {
    process.stderr.write('test agent: ignoring a line that is not JSON\n');
    return;
  }
  void handle(message);
});
// stdin EOF is the supervisor saying goodbye.
lines.on('close', () => process.exit(0));

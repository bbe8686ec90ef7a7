/**
 * The built-in example agent: a minimal agent of the agent protocol (docs/agent-protocol.md), with
 * node built-ins only. It shows a run, warm turns, progress events and cancel; nothing more.
 */
import { createInterface } from 'node:readline';

type Json = Record<string, unknown>;
type Reply = { result: Json } | { error: { code: number; message: string } };

const HELP = 'commands: echo TEXT | uppercase TEXT | count TEXT | sleep MS | history | help';

/** Messages of this session, for `history` (warm sessions remember their turns). */
const history: string[] = [];
/** Request ids the supervisor asked to cancel (`cancel` notification). */
const cancelled = new Set<unknown>();

function send(message: Json): void {
  process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
}

function countWords(text: string): number {
  const trimmed = text.trim();
  return trimmed.length === 0 ? 0 : trimmed.split(/\s+/).length;
}

/** Sleeps in four steps with a progress event after each; a `cancel` ends it at the next step. */
async function sleepWithProgress(id: unknown, ms: number): Promise<Reply> {
  const steps = 4;
  for (let step = 1; step <= steps; step += 1) {
    await new Promise((resolve) => setTimeout(resolve, ms / steps));
    if (cancelled.has(id)) return { error: { code: -32800, message: 'turn cancelled by the supervisor' } };
    const message = `slept ${Math.round((ms * step) / steps)} ms`;
    send({ method: 'event', params: { type: 'progress', progress: step, total: steps, message } });
  }
  return { result: { text: `slept ${ms} ms` } };
}

/** Answers one instruction (a `run`) or message (a `turn`). */
async function answer(id: unknown, text: string): Promise<Reply> {
  const trimmed = text.trim();
  const space = trimmed.indexOf(' ');
  const command = (space === -1 ? trimmed : trimmed.slice(0, space)).toLowerCase();
  const rest = space === -1 ? '' : trimmed.slice(space + 1);
  switch (command) {
    case 'echo':
      return { result: { text: rest } };
    case 'uppercase':
      return { result: { text: rest.toUpperCase() } };
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

async function handle(message: Json): Promise<void> {
  const { id, method } = message;
  const params = (
    typeof message.params === 'object' && message.params !== null ? message.params : {}
  ) as Json;
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
        message: `${method} needs a string ${method === 'run' ? 'instruction' : 'message'}`,
      },
    });
    return;
  }
  history.push(text);
  const reply = await answer(id, text);
  if ('result' in reply && typeof params.turn === 'number') reply.result.turn = params.turn;
  send({ id, ...reply });
}

const lines = createInterface({ input: process.stdin, crlfDelay: Number.POSITIVE_INFINITY });
lines.on('line', (line) => {
  if (line.trim().length === 0) return;
  try {
    void handle(JSON.parse(line) as Json);
  } catch {
    process.stderr.write('example agent: ignoring a line that is not JSON\n');
  }
});
// stdin EOF is the supervisor saying goodbye.
lines.on('close', () => process.exit(0));

/**
 * A scripted Anthropic Messages API on loopback, for driving real agents (Claude Code, ACP
 * adapters on top of it) offline: the test queues the model's replies (text, thinking, tool_use
 * blocks, usage), the server streams each as a proper Messages SSE stream and records every
 * request body, so a test can assert what the agent sent (earlier turns, tool results).
 * Side requests (a `claude-haiku-*` model, `HEAD /api/hello`, token counting) get a short canned
 * answer and do not consume the script.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ScriptedUsage {
  input_tokens: number;
  output_tokens: number;
  cache_read_input_tokens?: number;
  cache_creation_input_tokens?: number;
}

export interface ScriptedToolUse {
  name: string;
  input: Record<string, unknown>;
  /** Default: a fresh `toolu_…` id. */
  id?: string;
}

export interface ScriptedReply {
  thinking?: string;
  text?: string;
  toolUses?: ScriptedToolUse[];
  usage?: ScriptedUsage;
  /** Default: `tool_use` when the reply has tool uses, else `end_turn`. */
  stopReason?: string;
  /** The stream pauses after `message_start` until this resolves (a turn that is still "thinking"). */
  hold?: Promise<void>;
}

/** One recorded request to the messages endpoint. */
export interface RecordedRequest {
  path: string;
  model: string;
  /** The main conversation (not a side request of a small model). */
  main: boolean;
  body: MessagesBody;
}

export interface MessagesBody {
  model?: string;
  stream?: boolean;
  messages?: Array<{ role: string; content: unknown }>;
  tools?: unknown[];
  [key: string]: unknown;
}

const DEFAULT_USAGE: ScriptedUsage = { input_tokens: 10, output_tokens: 5 };
const MAX_BODY_BYTES = 32 * 1024 * 1024;

export class ScriptedModel {
  /** Every messages request, in arrival order. */
  readonly requests: RecordedRequest[] = [];
  private readonly script: ScriptedReply[] = [];
  private readonly waiters: Array<() => void> = [];
  private readonly open = new Set<ServerResponse>();
  private nextId = 1;

  private constructor(private readonly server: Server) {}

  static async start(): Promise<ScriptedModel> {
    const server = createServer();
    const model = new ScriptedModel(server);
    server.on('request', (req, res) => void model.handle(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return model;
  }

  /** The base URL for `ANTHROPIC_BASE_URL`. */
  get url(): string {
    const { port } = this.server.address() as AddressInfo;
    return `http://127.0.0.1:${port}`;
  }

  /** The main conversation's requests only. */
  get mainRequests(): RecordedRequest[] {
    return this.requests.filter((r) => r.main);
  }

  /** Replies still queued. */
  get pending(): number {
    return this.script.length;
  }

  enqueue(...replies: ScriptedReply[]): void {
    this.script.push(...replies);
  }

  /** Resolves once `count` main requests have arrived. */
  async mainRequestCount(count: number): Promise<void> {
    while (this.mainRequests.length < count) await new Promise<void>((resolve) => this.waiters.push(resolve));
  }

  async close(): Promise<void> {
    for (const res of this.open) res.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    if (req.method === 'HEAD' || req.method === 'GET') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(req.method === 'GET' ? '{}' : undefined);
      return;
    }
    let body: MessagesBody;
    try {
      body = JSON.parse(await readBody(req)) as MessagesBody;
    } catch (error) {
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({ type: 'error', error: { type: 'invalid_request_error', message: String(error) } }),
      );
      return;
    }
    if (path.endsWith('/count_tokens')) {
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"input_tokens":10}');
      return;
    }
    if (!path.endsWith('/v1/messages')) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ type: 'error', error: { type: 'not_found_error', message: path } }));
      return;
    }
    const model = typeof body.model === 'string' ? body.model : '';
    const main = !model.includes('haiku');
    this.requests.push({ path, model, main, body });
    for (const wake of this.waiters.splice(0)) wake();
    const reply = main ? this.script.shift() : { text: 'ok' };
    if (reply === undefined) {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          type: 'error',
          error: { type: 'api_error', message: 'the script has no reply left' },
        }),
      );
      return;
    }
    if (body.stream !== true) {
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify(this.message(reply, model)));
      return;
    }
    await this.stream(res, reply, model);
  }

  private message(reply: ScriptedReply, model: string): Record<string, unknown> {
    return {
      id: `msg_${this.nextId++}`,
      type: 'message',
      role: 'assistant',
      model,
      content: this.blocks(reply),
      stop_reason: stopReason(reply),
      stop_sequence: null,
      usage: reply.usage ?? DEFAULT_USAGE,
    };
  }

  private blocks(reply: ScriptedReply): Array<Record<string, unknown>> {
    const blocks: Array<Record<string, unknown>> = [];
    if (reply.thinking !== undefined)
      blocks.push({ type: 'thinking', thinking: reply.thinking, signature: 'scripted' });
    if (reply.text !== undefined) blocks.push({ type: 'text', text: reply.text });
    for (const use of reply.toolUses ?? [])
      blocks.push({
        type: 'tool_use',
        id: use.id ?? `toolu_${this.nextId++}`,
        name: use.name,
        input: use.input,
      });
    return blocks;
  }

  private async stream(res: ServerResponse, reply: ScriptedReply, model: string): Promise<void> {
    this.open.add(res);
    res.on('close', () => this.open.delete(res));
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const usage = reply.usage ?? DEFAULT_USAGE;
    const send = (event: string, data: Record<string, unknown>): void => {
      if (!res.destroyed) res.write(`event: ${event}\ndata: ${JSON.stringify({ type: event, ...data })}\n\n`);
    };
    const start = this.message(reply, model);
    send('message_start', {
      message: { ...start, content: [], stop_reason: null, usage: { ...usage, output_tokens: 1 } },
    });
    if (reply.hold !== undefined) await reply.hold;
    if (res.destroyed) return;
    for (const [index, block] of this.blocks(reply).entries()) {
      const { type } = block;
      if (type === 'text') {
        send('content_block_start', { index, content_block: { type: 'text', text: '' } });
        send('content_block_delta', { index, delta: { type: 'text_delta', text: block.text } });
      } else if (type === 'thinking') {
        send('content_block_start', {
          index,
          content_block: { type: 'thinking', thinking: '', signature: '' },
        });
        send('content_block_delta', { index, delta: { type: 'thinking_delta', thinking: block.thinking } });
        send('content_block_delta', {
          index,
          delta: { type: 'signature_delta', signature: block.signature },
        });
      } else {
        send('content_block_start', { index, content_block: { ...block, input: {} } });
        send('content_block_delta', {
          index,
          delta: { type: 'input_json_delta', partial_json: JSON.stringify(block.input) },
        });
      }
      send('content_block_stop', { index });
    }
    send('message_delta', {
      delta: { stop_reason: stopReason(reply), stop_sequence: null },
      usage: { output_tokens: usage.output_tokens },
    });
    send('message_stop', {});
    res.end();
  }
}

function stopReason(reply: ScriptedReply): string {
  return reply.stopReason ?? ((reply.toolUses?.length ?? 0) > 0 ? 'tool_use' : 'end_turn');
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new Error('request body too large');
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

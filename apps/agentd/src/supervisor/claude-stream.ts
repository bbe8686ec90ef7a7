/**
 * agentd's end of Claude Code's stream-json protocol (`claude -p --input-format stream-json
 * --output-format stream-json`): one JSON object a line each way. Agentd writes user messages and
 * control requests (`initialize`, `interrupt`) and answers the CLI's control requests
 * (`can_use_tool`, from `--permission-prompt-tool stdio`); the CLI writes system, assistant, user
 * (tool results) and result messages, control responses and `control_cancel_request`s.
 */
import { randomUUID } from 'node:crypto';
import type { Readable, Writable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';

export type ClaudeMessage = Record<string, unknown> & { type: string };

export interface ClaudeStreamEvents {
  /** Every message but control traffic. */
  onMessage(message: ClaudeMessage): void;
  /** The CLI asks for an answer (`can_use_tool`, …): resolve with the response payload. */
  onControlRequest(
    subtype: string,
    request: Record<string, unknown>,
    signal: AbortSignal,
  ): Promise<Record<string, unknown>>;
  /** The CLI broke the protocol (a line that is not a JSON object, a line past the size limit). */
  onViolation(reason: string, code: 'protocol_error' | 'output_too_large'): void;
}

const PREVIEW_CHARS = 120;

export class ClaudeStream {
  private readonly decoder = new StringDecoder('utf8');
  private partial = '';
  private broken = false;
  /** Control requests of the CLI being answered, by request id (a cancel aborts one). */
  private readonly answering = new Map<string, AbortController>();
  /** agentd's control requests waiting for their response. */
  private readonly waiting = new Map<string, (response: Record<string, unknown> | undefined) => void>();

  constructor(
    stdout: Readable,
    private readonly stdin: Writable,
    private readonly maxLineBytes: number,
    private readonly events: ClaudeStreamEvents,
  ) {
    stdout.on('data', (chunk: Buffer) => this.push(chunk));
    stdout.on('end', () => this.end());
  }

  /** One user message: the next turn. */
  sendUser(text: string, sessionId: string | undefined): void {
    this.write({
      type: 'user',
      message: { role: 'user', content: text },
      parent_tool_use_id: null,
      session_id: sessionId ?? '',
    });
  }

  /** A control request to the CLI; resolves with its response (undefined when the stream ends first). */
  control(
    subtype: string,
    fields: Record<string, unknown> = {},
  ): Promise<Record<string, unknown> | undefined> {
    const requestId = randomUUID();
    const answer = new Promise<Record<string, unknown> | undefined>((resolve) =>
      this.waiting.set(requestId, resolve),
    );
    this.write({ type: 'control_request', request_id: requestId, request: { subtype, ...fields } });
    return answer;
  }

  /** Stops every answer in progress and every wait (the child is gone or going). */
  close(): void {
    for (const controller of this.answering.values()) controller.abort();
    this.answering.clear();
    for (const resolve of this.waiting.values()) resolve(undefined);
    this.waiting.clear();
  }

  private write(message: Record<string, unknown>): void {
    if (this.stdin.writable) this.stdin.write(`${JSON.stringify(message)}\n`);
  }

  private push(chunk: Buffer): void {
    if (this.broken) return;
    const lines = (this.partial + this.decoder.write(chunk)).split('\n');
    this.partial = lines.pop() ?? '';
    if (Buffer.byteLength(this.partial) > this.maxLineBytes) {
      this.violate(`claude wrote a line longer than ${this.maxLineBytes} bytes`, 'output_too_large');
      return;
    }
    for (const line of lines) {
      if (this.broken) return;
      this.line(line);
    }
  }

  private end(): void {
    const rest = this.partial + this.decoder.end();
    this.partial = '';
    if (!this.broken && rest.trim() !== '') this.line(rest);
    this.close();
  }

  private line(text: string): void {
    if (text.trim() === '') return;
    if (Buffer.byteLength(text) > this.maxLineBytes) {
      this.violate(`claude wrote a line longer than ${this.maxLineBytes} bytes`, 'output_too_large');
      return;
    }
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      message = undefined;
    }
    if (
      typeof message !== 'object' ||
      message === null ||
      typeof (message as ClaudeMessage).type !== 'string'
    ) {
      this.violate(
        `claude wrote a line that is not a stream-json message: ${preview(text)}`,
        'protocol_error',
      );
      return;
    }
    this.dispatch(message as ClaudeMessage);
  }

  private dispatch(message: ClaudeMessage): void {
    if (message.type === 'control_request') {
      this.answer(message);
      return;
    }
    if (message.type === 'control_cancel_request') {
      const id = String(message.request_id);
      this.answering.get(id)?.abort();
      return;
    }
    if (message.type === 'control_response') {
      const response = (message.response ?? {}) as Record<string, unknown>;
      const id = String(response.request_id);
      const resolve = this.waiting.get(id);
      this.waiting.delete(id);
      resolve?.(response);
      return;
    }
    this.events.onMessage(message);
  }

  private answer(message: ClaudeMessage): void {
    const requestId = typeof message.request_id === 'string' ? message.request_id : undefined;
    const request = (message.request ?? {}) as Record<string, unknown>;
    if (requestId === undefined) {
      this.violate('claude sent a control request without a request_id', 'protocol_error');
      return;
    }
    const controller = new AbortController();
    this.answering.set(requestId, controller);
    const subtype = String(request.subtype);
    this.events
      .onControlRequest(subtype, request, controller.signal)
      .then(
        (response) =>
          this.write({
            type: 'control_response',
            response: { subtype: 'success', request_id: requestId, response },
          }),
        (error: unknown) =>
          this.write({
            type: 'control_response',
            response: {
              subtype: 'error',
              request_id: requestId,
              error: error instanceof Error ? error.message : String(error),
            },
          }),
      )
      .finally(() => this.answering.delete(requestId));
  }

  private violate(reason: string, code: 'protocol_error' | 'output_too_large'): void {
    this.broken = true;
    this.events.onViolation(reason, code);
  }
}

function preview(text: string): string {
  return JSON.stringify(text.length > PREVIEW_CHARS ? `${text.slice(0, PREVIEW_CHARS)}…` : text);
}

/**
 * What a followed run (spawn, send, attach) shows while it runs and when it ends. Piped: every
 * streamed line on stderr, the result's output on stdout, as scripts expect. On a terminal: the
 * output streams once on stdout, the agent's stderr lines are marked, a status line shows the
 * elapsed time while the agent is silent, and states are coloured.
 */
import { isJsonObject, type JsonRpcNotification } from '@agentd/rpc-frame';
import { pretty, statusText } from './format.js';
import { inert, inertJson } from './inert-text.js';
import type { Output } from './output.js';
import { RunEventText } from './run-event-text.js';
import { CLEAR_LINE, paintState, type TermStyle, tint } from './term-style.js';

/** The run the view follows, as far as it is known yet. */
export interface Followed {
  handle?: string;
  runId?: string;
  /** When the run started (its status' startedAt), for the elapsed time. */
  startedAt?: number;
}

/** Characters of streamed message kept to compare with the final output. */
const CHUNKS_KEPT = 2 * 1024 * 1024;

/** A silent agent gets its status line after this long; it is redrawn this often. */
const STATUS_AFTER_MS = 1_000;

function elapsedText(ms: number): string {
  const seconds = Math.floor(ms / 1000);
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  return minutes < 60
    ? `${minutes}m${String(seconds % 60).padStart(2, '0')}s`
    : `${Math.floor(minutes / 60)}h${String(minutes % 60).padStart(2, '0')}m`;
}

export class RunView {
  readonly followed: Followed = { startedAt: Date.now() };
  /** The stdout lines shown as they streamed, to tell whether the final output was already seen. */
  readonly #shown: string[] = [];
  readonly #io: Output;
  readonly #style: TermStyle;
  readonly #json: boolean;
  /** `--events`: run events as JSON lines on stdout. */
  readonly #eventLines: boolean;
  readonly #events: RunEventText;
  /** The agent's message as streamed in chunks (run events), to tell whether the final output was seen. */
  #chunks = '';
  /** A chunk left the cursor mid-line: the next line starts on a new one. */
  #midLine: 'out' | 'err' | undefined;
  #statusLine = false;
  #lastOutputAt = Date.now();
  #progress: string | undefined;
  #timer: ReturnType<typeof setInterval> | undefined;

  constructor(io: Output, style: TermStyle, json: boolean, eventLines = false) {
    this.#io = io;
    this.#style = style;
    this.#json = json;
    this.#eventLines = eventLines;
    this.#events = new RunEventText(style.colourErr, style.agentColours === true);
    if (style.interactive && !json) {
      this.#timer = setInterval(() => this.#drawStatus(), STATUS_AFTER_MS);
      this.#timer.unref();
    }
  }

  /** Agent text as shown: inert, its SGR colours only with `--color-agent-output` (inert-text.ts). */
  #agent(text: string): string {
    return inert(text, { colours: this.#style.agentColours === true });
  }

  /** A line of the CLI's own (started, attached, interrupted): dim on a terminal. */
  note(text: string): void {
    if (this.#json) return;
    this.#line('err', tint(this.#style.colourErr, 'dim', `agentd: ${text}`));
  }

  readonly onNotification = (notification: JsonRpcNotification): void => {
    const params = isJsonObject(notification.params) ? notification.params : {};
    if (notification.method === 'notifications/message') {
      const data = params.data;
      if (isJsonObject(data) && data.event === 'started') {
        this.followed.handle = String(data.handle);
        this.followed.runId = String(data.runId);
        this.note(`run ${this.followed.runId} started (handle ${this.followed.handle})`);
        return;
      }
      if (isJsonObject(data) && data.event === 'run_event') {
        this.#runEvent(data.run);
        return;
      }
      if (this.#json) return;
      const text = this.#agent(typeof data === 'string' ? data : JSON.stringify(data));
      // An agent's log lines are its stderr (plain agents) or its log events (protocol agents).
      if (this.#style.interactive) this.#line('err', `${tint(this.#style.colourErr, 'yellow', '!')} ${text}`);
      else this.#io.err(`${text}\n`);
    } else if (notification.method === 'notifications/progress' && !this.#json) {
      const message = typeof params.message === 'string' ? this.#agent(params.message) : undefined;
      const total = typeof params.total === 'number' ? `/${params.total}` : '';
      const counter = `progress ${String(params.progress)}${total}`;
      if (!this.#style.interactive) {
        // A bare counter says nothing a log reader needs; only its message is worth a line.
        if (message !== undefined) this.#io.err(`${message}\n`);
      } else if (message === undefined) {
        // A bare counter belongs in the status line, not in the output.
        this.#progress = counter;
        this.#drawStatus(true);
      } else {
        this.#shown.push(message);
        this.#line('out', message);
      }
    }
  };

  /** One run event: a JSON line (`--events`), else its readable lines (run-event-text.ts). */
  #runEvent(event: unknown): void {
    if (!isJsonObject(event)) return;
    if (this.#eventLines) {
      this.#endChunks();
      this.#io.out(`${inertJson(JSON.stringify(event))}\n`);
      return;
    }
    if (this.#json) return;
    for (const shown of this.#events.render(event, this.followed.handle)) {
      if (shown.kind === 'line') {
        this.#line('err', shown.text);
        continue;
      }
      // The message is the answer: on a terminal it streams on stdout, piped on stderr as lines do.
      const stream = this.#style.interactive ? 'out' : 'err';
      this.#clearStatus();
      if (this.#midLine !== undefined && this.#midLine !== stream) this.#endChunks();
      this.#io[stream](shown.text);
      // Only its end matters (compared with the final output, itself at most 1 MiB).
      this.#chunks = (this.#chunks + shown.text).slice(-CHUNKS_KEPT);
      this.#lastOutputAt = Date.now();
      this.#midLine = shown.text.endsWith('\n') ? undefined : stream;
    }
  }

  /** Ends a message left mid-line, so the next line starts on its own. */
  #endChunks(): void {
    if (this.#midLine === undefined) return;
    this.#io[this.#midLine]('\n');
    this.#midLine = undefined;
  }

  /** The final answer of the run (a status) or of a turn (a send result). */
  finish(value: unknown, kind: 'run' | 'turn'): void {
    this.stop();
    this.#endChunks();
    const { out, err } = { out: (t: string) => this.#io.out(t), err: (t: string) => this.#io.err(t) };
    if (this.#json) {
      out(pretty(value));
      return;
    }
    if (kind === 'turn' && isJsonObject(value)) {
      this.#output(String(value.output ?? ''));
      return;
    }
    if (isJsonObject(value) && typeof value.state === 'string') {
      err(
        statusText(
          { ...value, output: undefined, tail: undefined },
          this.#style.colourErr,
          this.#style.agentColours === true,
        ),
      );
      if (typeof value.output === 'string') this.#output(value.output);
      return;
    }
    err(`agentd: ${inert(typeof value === 'string' ? value : JSON.stringify(value))}\n`);
  }

  /** Ends the status line and its timer (before any final or interrupt message). */
  stop(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
    this.#clearStatus();
  }

  /** Shown once on a terminal: output that already streamed line by line is not printed again. */
  #output(raw: string): void {
    const output = this.#agent(raw);
    const streamed = this.#shown.join('\n');
    if (this.#style.interactive && this.#shown.length > 0 && streamed.trimEnd() === output.trimEnd()) return;
    // Streamed as message chunks (an acp or claude agent's turn): shown already.
    if (this.#style.interactive && this.#chunks !== '' && this.#chunks.trimEnd().endsWith(output.trimEnd()))
      return;
    this.#io.out(`${output}\n`);
  }

  #line(stream: 'out' | 'err', text: string): void {
    this.#clearStatus();
    this.#endChunks();
    this.#lastOutputAt = Date.now();
    this.#io[stream](`${text}\n`);
  }

  #clearStatus(): void {
    if (!this.#statusLine) return;
    this.#statusLine = false;
    this.#io.err(CLEAR_LINE);
  }

  #drawStatus(force = false): void {
    if (this.#timer === undefined) return;
    const now = Date.now();
    if (!force && now - this.#lastOutputAt < STATUS_AFTER_MS) return;
    const { runId, startedAt } = this.followed;
    const elapsed = elapsedText(now - (startedAt ?? now));
    const silent = force ? '' : `, silent ${elapsedText(now - this.#lastOutputAt)}`;
    const what = `${runId ?? 'run'} ${paintState(this.#style.colourErr, 'running')} ${elapsed}${silent}`;
    const progress = this.#progress === undefined ? '' : ` · ${this.#progress}`;
    this.#io.err(`${CLEAR_LINE}${tint(this.#style.colourErr, 'dim', '…')} ${what}${progress}`);
    this.#statusLine = true;
  }
}

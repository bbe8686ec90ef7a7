import type { JsonRpcNotification } from '@agentd/rpc-frame';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { RunView } from './run-view.js';
import { CLEAR_LINE, PLAIN_STYLE, type TermStyle } from './term-style.js';

const TERMINAL: TermStyle = { interactive: true, colourOut: false, colourErr: false };

function sink() {
  const written = { out: '', err: '', both: '' };
  return {
    written,
    io: {
      out: (text: string) => {
        written.out += text;
        written.both += text;
      },
      err: (text: string) => {
        written.err += text;
        written.both += text;
      },
    },
  };
}

const started: JsonRpcNotification = {
  jsonrpc: '2.0',
  method: 'notifications/message',
  params: { level: 'info', data: { event: 'started', handle: 'sa_h', runId: 'run_r', agent: 'a' } },
};
const line = (text: string, progress: number): JsonRpcNotification => ({
  jsonrpc: '2.0',
  method: 'notifications/progress',
  params: { progressToken: 't', progress, message: text },
});
const stderrLine = (text: string): JsonRpcNotification => ({
  jsonrpc: '2.0',
  method: 'notifications/message',
  params: { level: 'info', data: text },
});
const result = {
  state: 'succeeded',
  agent: 'a',
  runId: 'run_r',
  handle: 'sa_h',
  startedAt: '2026-12-02T00:00:00.000Z',
  endedAt: '2026-12-02T00:00:01.000Z',
  output: 'one\ntwo',
};

afterEach(() => {
  vi.useRealTimers();
});

describe('RunView', () => {
  it('piped: lines on stderr, the whole output on stdout, exactly as before', () => {
    const { io, written } = sink();
    const view = new RunView(io, PLAIN_STYLE, false);
    for (const n of [started, line('one', 1), stderrLine('careful'), line('two', 2)]) view.onNotification(n);
    view.finish(result, 'run');
    expect(written.out).toBe('one\ntwo\n');
    expect(written.err).toBe(
      'agentd: run run_r started (handle sa_h)\none\ncareful\ntwo\nsucceeded  a  run_r  (1.0 s)\nhandle sa_h\n',
    );
  });

  it('piped: a bare progress counter (a turn under way) prints nothing', () => {
    const { io, written } = sink();
    const view = new RunView(io, PLAIN_STYLE, false);
    const bare: JsonRpcNotification = {
      jsonrpc: '2.0',
      method: 'notifications/progress',
      params: { progressToken: 't', progress: 1 },
    };
    for (const n of [started, bare, line('one', 2)]) view.onNotification(n);
    expect(written.err).toBe('agentd: run run_r started (handle sa_h)\none\n');
  });

  it('on a terminal: the output streams once, stderr lines are marked', () => {
    const { io, written } = sink();
    const view = new RunView(io, TERMINAL, false);
    for (const n of [started, line('one', 1), stderrLine('careful'), line('two', 2)]) view.onNotification(n);
    view.finish(result, 'run');
    expect(written.out).toBe('one\ntwo\n');
    expect(written.err).toContain('! careful\n');
    expect(written.err).toContain('succeeded  a  run_r');
  });

  it('on a terminal: output that did not stream (a protocol agent) is printed at the end', () => {
    const { io, written } = sink();
    const view = new RunView(io, TERMINAL, false);
    view.onNotification(line('step 1 of 2', 1));
    view.finish(result, 'run');
    expect(written.out).toBe('step 1 of 2\none\ntwo\n');
  });

  it('on a terminal: a silent agent gets a status line with the elapsed time, erased before the next line', () => {
    vi.useFakeTimers();
    const { io, written } = sink();
    const view = new RunView(io, TERMINAL, false);
    view.onNotification(started);
    expect(written.err).not.toContain('running');
    vi.advanceTimersByTime(3_000);
    expect(written.err.endsWith(`${CLEAR_LINE}… run_r running 3s, silent 3s`)).toBe(true);
    view.onNotification(line('one', 1));
    expect(written.both.endsWith(`silent 3s${CLEAR_LINE}one\n`)).toBe(true);
    view.finish({ ...result, output: 'one' }, 'run');
    expect(written.out).toBe('one\n');
  });

  it('piped: never draws a status line', () => {
    vi.useFakeTimers();
    const { io, written } = sink();
    const view = new RunView(io, PLAIN_STYLE, false);
    view.onNotification(started);
    vi.advanceTimersByTime(5_000);
    view.finish(result, 'run');
    expect(written.both).not.toContain('\u001b');
  });
});

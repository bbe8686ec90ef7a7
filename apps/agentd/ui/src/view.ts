/** The page's DOM: finds the static skeleton of page.html and renders state into it (text only, never HTML). */
import { inert } from '../../src/cli/inert-text.js';
import type { Json } from './connection.js';
import type { OutputLine } from './output-buffer.js';
import { clock, dateTime, durationWords } from './time-words.js';

export interface RunView {
  handle: string;
  runId: string;
  agent: string;
  state: string;
  terminal: boolean;
  startedAt: string;
  endedAt?: string;
  output?: string;
  error?: { message?: string; code?: string };
  reason?: string;
  pid?: number;
  warm?: boolean;
  busy?: boolean;
  tail?: OutputLine[];
  mode?: string;
  /** Checked where used (run-events.ts): wire JSON. */
  pendingPermissions?: unknown;
  usage?: unknown;
  events?: unknown;
}

const byId = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const one = <T extends HTMLElement>(selector: string) => document.querySelector(selector) as T;

export const dom = {
  daemon: byId<HTMLParagraphElement>('daemon'),
  notice: byId<HTMLParagraphElement>('notice'),
  signin: one<HTMLFormElement>('form[data-action="token"]'),
  spawn: one<HTMLFormElement>('form[data-action="spawn"]'),
  runs: byId<HTMLUListElement>('runs'),
  noRuns: byId<HTMLParagraphElement>('no-runs'),
  detail: byId<HTMLElement>('detail'),
  detailTitle: byId<HTMLHeadingElement>('detail-title'),
  detailMeta: byId<HTMLParagraphElement>('detail-meta'),
  cancel: one<HTMLButtonElement>('button[data-action="cancel"]'),
  events: byId<HTMLDivElement>('run-events'),
  output: one<HTMLPreElement>('[data-run-output]'),
  result: byId<HTMLDivElement>('result'),
  resultTitle: byId<HTMLHeadingElement>('result-title'),
  resultText: byId<HTMLPreElement>('result-text'),
};

const duration = (run: RunView, now: number) => durationWords(run.startedAt, run.endedAt, now);

function span(className: string, text: string): HTMLSpanElement {
  const el = document.createElement('span');
  el.className = className;
  el.textContent = text;
  return el;
}

export function showNotice(text: string | undefined): void {
  dom.notice.hidden = text === undefined;
  dom.notice.textContent = text ?? '';
}

export function renderDaemon(status: Json | undefined, limits: Json | undefined): void {
  if (status === undefined) return;
  const parts = [`agentd ${String(status.version ?? '')}`.trim()];
  parts.push(status.ready === true ? 'ready' : 'not ready');
  if (status.paused === true) parts.push('paused');
  if (status.draining === true) parts.push('draining');
  const max = (key: string) => (typeof limits?.[key] === 'number' ? `/${String(limits[key])}` : '');
  parts.push(`running ${String(status.running ?? 0)}${max('maxConcurrentRuns')}`);
  parts.push(`warm ${String(status.warm ?? 0)}${max('maxWarmSessions')}`);
  if (typeof status.exposure === 'string') parts.push(`exposure ${status.exposure}`);
  dom.daemon.textContent = parts.join(' · ');
}

/** Updates the run rows in place (keyed by handle), so focus and selection survive each update. */
export function renderRuns(runs: readonly RunView[], selected: string | undefined, now: number): void {
  const rows = new Map<string, HTMLLIElement>();
  for (const li of dom.runs.querySelectorAll<HTMLLIElement>('li[data-run-handle]'))
    rows.set(li.dataset.runHandle as string, li);
  const wanted: HTMLLIElement[] = [];
  for (const run of runs) {
    let li = rows.get(run.handle);
    rows.delete(run.handle);
    if (li === undefined) {
      li = document.createElement('li');
      li.dataset.runHandle = run.handle;
      const button = document.createElement('button');
      button.type = 'button';
      button.append(
        span('id', ''),
        span('agent', ''),
        span('state', ''),
        span('started', ''),
        span('duration', ''),
      );
      li.append(button);
    }
    li.dataset.runStatus = run.state;
    li.setAttribute('aria-current', String(run.handle === selected));
    const button = li.firstElementChild as HTMLButtonElement;
    const [id, agent, state, started, took] = Array.from(button.children) as HTMLSpanElement[];
    (id as HTMLSpanElement).textContent = run.runId;
    (agent as HTMLSpanElement).textContent = run.agent;
    (state as HTMLSpanElement).textContent = run.state;
    (started as HTMLSpanElement).textContent = clock(run.startedAt);
    (took as HTMLSpanElement).textContent = duration(run, now);
    button.setAttribute(
      'aria-label',
      `run ${run.runId}, agent ${run.agent}, ${run.state}, ${duration(run, now)}`,
    );
    wanted.push(li);
  }
  for (const stale of rows.values()) stale.remove();
  const current = Array.from(dom.runs.children);
  if (current.length !== wanted.length || current.some((el, i) => el !== wanted[i]))
    dom.runs.replaceChildren(...wanted);
  dom.noRuns.hidden = runs.length > 0;
}

export function renderDetail(
  run: RunView | undefined,
  output: { readonly lines: readonly OutputLine[]; readonly version: number | string },
  canCancel: boolean,
  now: number,
): void {
  dom.detail.hidden = run === undefined;
  if (run === undefined) return;
  dom.detail.dataset.runHandle = run.handle;
  dom.detail.dataset.runStatus = run.state;
  dom.detailTitle.textContent = `Run ${run.runId}`;
  // A stored run may be days old: its day is said unless it is today.
  const today = new Date(run.startedAt).toDateString() === new Date(now).toDateString();
  const started = today ? clock(run.startedAt) : dateTime(run.startedAt);
  const meta = [run.agent, run.state, `started ${started}`, duration(run, now)];
  if (run.pid !== undefined && !run.terminal) meta.push(`pid ${run.pid}`);
  dom.detailMeta.textContent = meta.join(' · ');
  dom.cancel.hidden = !canCancel || run.terminal;
  const atBottom = dom.output.scrollTop + dom.output.clientHeight >= dom.output.scrollHeight - 4;
  const version = `${run.handle} ${output.version}`;
  if (dom.output.dataset.version !== version) {
    dom.output.dataset.version = version;
    dom.output.replaceChildren(
      ...output.lines.map((line) => {
        const el = document.createElement('span');
        el.className = line.stream;
        // Agent text: bidi and other controls shown, not applied (the CLI's rule, inert-text.ts).
        el.textContent = inert(line.text);
        return el;
      }),
    );
    // Follow the stream unless the reader scrolled up to look at something.
    if (atBottom) dom.output.scrollTop = dom.output.scrollHeight;
  }
  dom.result.hidden = !run.terminal;
  if (run.terminal) {
    const failed = run.state !== 'succeeded';
    dom.resultTitle.textContent = failed ? `Ended ${run.state}` : 'Result';
    dom.resultText.className = failed ? 'error' : '';
    const message = inert(run.error?.message ?? run.state);
    const reason =
      run.reason === undefined || message.includes(inert(run.reason)) ? '' : ` (${inert(run.reason)})`;
    // What already streamed above is not repeated; a run that streamed nothing shows its output here.
    const streamed = output.lines.length > 0;
    dom.resultText.textContent = failed
      ? `${message}${reason}${run.output && !streamed ? `\n\n${inert(run.output)}` : ''}`
      : inert(run.output ?? '');
  }
}

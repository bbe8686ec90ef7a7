/**
 * The History view's DOM: the filters form, the stored runs as rows (keyed by handle, updated in
 * place so focus survives), the status line and the "Load more" button. Agent text (the
 * instruction, the agent's name) goes in as `textContent`, made inert first, never as markup.
 */
import { inert } from '../../src/cli/inert-text.js';
import type { HistoryFilters, HistoryRow } from './history-api.js';

const byId = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;

export const historyDom = {
  views: document.querySelector('nav.views') as HTMLElement,
  live: byId<HTMLElement>('live'),
  history: byId<HTMLElement>('history'),
  form: document.querySelector('form[data-action="history"]') as HTMLFormElement,
  agents: byId<HTMLDataListElement>('history-agents'),
  status: byId<HTMLParagraphElement>('history-status'),
  runs: byId<HTMLUListElement>('history-runs'),
  more: document.querySelector('button[data-action="more"]') as HTMLButtonElement,
};

export type ViewName = 'live' | 'history';

/** Shows one view: the live runs or the history (the run detail below serves both). */
export function showView(view: ViewName): void {
  historyDom.live.hidden = view !== 'live';
  historyDom.history.hidden = view !== 'history';
  for (const button of historyDom.views.querySelectorAll<HTMLButtonElement>('button[data-view]'))
    button.setAttribute('aria-pressed', String(button.dataset.view === view));
}

/** The filters as typed. */
export function filtersOfForm(): HistoryFilters {
  const form = new FormData(historyDom.form);
  const filters: HistoryFilters = {};
  for (const key of ['text', 'agent', 'state'] as const) {
    const value = form.get(key);
    if (typeof value === 'string' && value.trim() !== '') filters[key] = value.trim();
  }
  return filters;
}

/** The agent names offered as suggestions (stored runs may name agents no longer configured: any name may be typed). */
export function offerAgents(names: readonly string[]): void {
  historyDom.agents.replaceChildren(
    ...names.map((name) => {
      const option = document.createElement('option');
      option.value = name;
      return option;
    }),
  );
}

function span(className: string): HTMLSpanElement {
  const el = document.createElement('span');
  el.className = className;
  return el;
}

function rowOf(row: HistoryRow): HTMLLIElement {
  const li = document.createElement('li');
  li.dataset.historyHandle = row.handle;
  const button = document.createElement('button');
  button.type = 'button';
  button.className = 'history-row';
  const parts: [string, string][] = [
    ['id', row.runId],
    ['agent', row.agent],
    ['state', row.state],
    ['started', row.started],
    ['duration', row.duration],
  ];
  if (row.usage !== undefined) parts.push(['words', row.usage]);
  if (row.instruction !== undefined) parts.push(['instruction', row.instruction]);
  for (const [className, text] of parts) {
    const el = span(className);
    el.textContent = inert(text);
    button.append(el);
  }
  button.setAttribute(
    'aria-label',
    inert(`run ${row.runId}, agent ${row.agent}, ${row.state}, started ${row.started}, ${row.duration}`),
  );
  li.append(button);
  return li;
}

export interface HistoryShown {
  rows: readonly HistoryRow[];
  /** Whether a next page exists. */
  more: boolean;
  loading: boolean;
  /** Why the history could not be read, when it could not. */
  problem?: string;
  selected: string | undefined;
}

/** Draws the list; rows already drawn for the same run and content are kept as they are. */
export function renderHistory(shown: HistoryShown): void {
  const drawn = new Map<string, HTMLLIElement>();
  for (const li of historyDom.runs.querySelectorAll<HTMLLIElement>('li[data-history-handle]'))
    drawn.set(li.dataset.historyHandle as string, li);
  const wanted = shown.rows.map((row) => {
    const signature = JSON.stringify(row);
    let li = drawn.get(row.handle);
    if (li === undefined || li.dataset.signature !== signature) {
      li = rowOf(row);
      li.dataset.signature = signature;
    }
    li.dataset.runStatus = row.state;
    li.setAttribute('aria-current', String(row.handle === shown.selected));
    return li;
  });
  const current = Array.from(historyDom.runs.children);
  if (current.length !== wanted.length || current.some((el, i) => el !== wanted[i]))
    historyDom.runs.replaceChildren(...wanted);
  historyDom.more.hidden = !shown.more;
  historyDom.more.disabled = shown.loading;
  historyDom.status.textContent =
    shown.problem !== undefined
      ? `The history could not be read: ${shown.problem}`
      : shown.loading
        ? 'Loading…'
        : shown.rows.length === 0
          ? 'No stored runs match.'
          : `${shown.rows.length}${shown.more ? '+' : ''} stored run${shown.rows.length === 1 ? '' : 's'}`;
}

/**
 * The History view's state and wiring: the filters last searched, the rows read so far and the
 * cursor of the next page. A new search starts from the first page; an answer to a search that
 * was replaced meanwhile is dropped, so rows never mix two searches. Opening a row is the page's
 * business (main.ts): the panel only names the handle.
 */
import type { AgentdApi } from './agentd-api.js';
import { problem } from './connection.js';
import { type HistoryFilters, type HistoryRow, readHistoryPage } from './history-api.js';
import { filtersOfForm, historyDom, renderHistory, showView, type ViewName } from './history-view.js';

export interface HistoryHost {
  /** The signed-in session's API; undefined while there is none. */
  api(): AgentdApi | undefined;
  selected(): string | undefined;
  open(handle: string): void;
  /** A failure that is the session's (a refused token), not the history's. */
  failed(error: unknown): boolean;
}

export class HistoryPanel {
  #rows: HistoryRow[] = [];
  #cursor: string | undefined;
  #filters: HistoryFilters = {};
  #loading = false;
  #problem: string | undefined;
  /** Bumped by every new search and reset: older answers are stale. */
  #generation = 0;
  #view: ViewName = 'live';

  constructor(readonly host: HistoryHost) {}

  get view(): ViewName {
    return this.#view;
  }

  /** A new session: nothing of the last one's history stays. */
  reset(): void {
    this.#generation++;
    this.#rows = [];
    this.#cursor = undefined;
    this.#loading = false;
    this.#problem = undefined;
    this.render();
  }

  /** Offers the History view (or hides it, for a daemon without a run store). */
  offer(available: boolean): void {
    historyDom.views.hidden = !available;
    if (!available && this.#view === 'history') this.show('live');
  }

  show(view: ViewName): void {
    this.#view = view;
    showView(view);
    // Each visit reads the first page again: runs ended since the last one.
    if (view === 'history') void this.search(this.#filters);
  }

  async search(filters: HistoryFilters): Promise<void> {
    this.#filters = filters;
    this.#rows = [];
    this.#cursor = undefined;
    await this.#read(undefined);
  }

  async more(): Promise<void> {
    if (this.#cursor === undefined || this.#loading) return;
    await this.#read(this.#cursor);
  }

  async #read(cursor: string | undefined): Promise<void> {
    const api = this.host.api();
    if (api === undefined) return;
    const generation = ++this.#generation;
    this.#loading = true;
    this.#problem = undefined;
    this.render();
    try {
      const page = await readHistoryPage(api, this.#filters, cursor);
      if (generation !== this.#generation) return;
      const known = new Set(this.#rows.map((r) => r.handle));
      // A run that started between two pages could show twice: once is enough.
      this.#rows.push(...page.rows.filter((r) => !known.has(r.handle)));
      this.#cursor = page.nextCursor;
    } catch (error) {
      if (generation !== this.#generation) return;
      if (!this.host.failed(error)) this.#problem = problem(error);
    } finally {
      if (generation === this.#generation) {
        this.#loading = false;
        this.render();
      }
    }
  }

  render(): void {
    const shown = {
      rows: this.#rows,
      more: this.#cursor !== undefined,
      loading: this.#loading,
      selected: this.host.selected(),
    };
    renderHistory(this.#problem === undefined ? shown : { ...shown, problem: this.#problem });
  }

  wire(): void {
    historyDom.views.addEventListener('click', (event) => {
      const button = (event.target as HTMLElement).closest<HTMLButtonElement>('button[data-view]');
      if (button !== null) this.show(button.dataset.view === 'history' ? 'history' : 'live');
    });
    historyDom.form.addEventListener('submit', (event) => {
      event.preventDefault();
      void this.search(filtersOfForm());
    });
    historyDom.more.addEventListener('click', () => void this.more());
    historyDom.runs.addEventListener('click', (event) => {
      const li = (event.target as HTMLElement).closest<HTMLLIElement>('li[data-history-handle]');
      if (li?.dataset.historyHandle !== undefined) this.host.open(li.dataset.historyHandle);
    });
  }
}

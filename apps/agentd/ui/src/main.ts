/**
 * agentd's runs page: one file, two homes. Framed by an MCP Apps host it talks only through the
 * host bridge; opened at /ui/ on a listener it talks to that listener's MCP endpoint. Either way
 * it sees exactly what its peer may see: runs for peers that can read the inventory, controls
 * for peers that see operator operations, and otherwise only the runs it was handed.
 */
import { agentdApi, type Exposure, runOfToolResult } from './agentd-api.js';
import { answerPrompt } from './answer-prompt.js';
import { type Connection, type Json, PageError, problem } from './connection.js';
import { HistoryPanel } from './history-panel.js';
import { offerAgents } from './history-view.js';
import { connectHost } from './host-connection.js';
import { httpConnection } from './http-connection.js';
import { lineOfNotification } from './output-buffer.js';
import { notifiedEntry, type RunEventEntry } from './run-events.js';
import { renderRunEvents } from './run-events-view.js';
import { runModel } from './run-model.js';
import {
  bufferOf,
  canApprove,
  canCancel,
  canStream,
  eventsOf,
  isOperator,
  outputOf,
  producing,
  readsHistory,
  readsInventory,
  remember,
  type Session,
} from './session.js';
import { signInFromAddress } from './sign-in.js';
import { loadWholeLog, openStored, type PageHost } from './stored-runs.js';
import { dom, type RunView, renderDaemon, renderDetail, renderRuns, showNotice } from './view.js';

const TOKEN_KEY = 'agentd.token';
/** Why the sign-in link did not sign in, said with the restricted notice. */
let signInFailure = '';
const LIVE_POLL_MS = 500;
const STATUS_POLL_MS = 2_000;

const inHost = window.parent !== window;
const endpoint = document.querySelector<HTMLMetaElement>('meta[name="agentd-endpoint"]')?.content || '/mcp';

let session: Session | undefined;

const history = new HistoryPanel({
  api: () => session?.api,
  selected: () => session?.selected,
  open: (handle) => {
    if (session !== undefined) openStored(session, handle, pageHost);
  },
  failed: (error) => {
    if (session === undefined || !(error instanceof PageError) || error.code !== 'unauthorized') return false;
    failed(session, error);
    return true;
  },
});

/** What the History view's run loading calls back into. */
const pageHost: PageHost = {
  current: () => session,
  render: () => render(),
  select: (s, handle) => select(s, handle),
  failed: (s, error) => failed(s, error),
};

function render(): void {
  const s = session;
  if (s === undefined) return;
  const now = Date.now();
  renderDaemon(s.status, s.capabilities.limits as Json | undefined);
  const runs = [...s.runs.values()].sort((a, b) => b.startedAt.localeCompare(a.startedAt));
  renderRuns(runs, s.selected, now);
  const run = s.selected === undefined ? undefined : (s.runs.get(s.selected) ?? s.stored.get(s.selected));
  // A finished run shows its whole stored log once read; until then (or without a store) what the page has.
  const whole = run?.terminal === true ? s.wholeLogs.get(run.handle) : undefined;
  const log = typeof whole === 'object' ? whole : undefined;
  const output =
    run === undefined
      ? { lines: [], version: 0 }
      : log === undefined
        ? outputOf(s, run)
        : { lines: log.lines, version: 'whole' };
  renderDetail(run, output, run !== undefined && canCancel(s, run.handle), now);
  if (run !== undefined) {
    const model = runModel(run as unknown as Json, log?.entries ?? eventsOf(s, run.handle).entries);
    renderRunEvents(dom.events, model, { canApprove: canApprove(s, run.handle), answering: s.answering });
    // A run told through its events (acp, claude) may have no output lines at all: no empty pane then.
    dom.output.hidden = output.lines.length === 0 && !dom.events.hidden;
  }
  history.render();
  follow(s, run);
  if (run !== undefined) loadDetail(s, run);
}

/**
 * A listed run is a summary: once the shown run has finished, its output is read by handle, and
 * its whole log from the run store, once each.
 */
function loadDetail(s: Session, run: RunView): void {
  if (!run.terminal) return;
  loadWholeLog(s, run, pageHost);
  if (run.output !== undefined || s.detailed.has(run.handle)) return;
  s.detailed.add(run.handle);
  refreshRun(s, run.handle).then(render, (error: unknown) => showNotice(problem(error)));
}

let renderQueued = false;
/** Streamed lines come in bursts: one render per burst. */
function renderSoon(): void {
  if (renderQueued) return;
  renderQueued = true;
  setTimeout(() => {
    renderQueued = false;
    render();
  }, 30);
}

/**
 * A streamed run event goes to the run's log. A permission request or decision also changes the
 * run's pending prompts, which only its status lists: that is read then.
 */
function onRunEvent(s: Session, handle: string, entry: RunEventEntry): void {
  eventsOf(s, handle).push(entry);
  const type = entry.event.type;
  if (type === 'permission_request' || type === 'permission_decision')
    refreshRun(s, handle).then(renderSoon, (error: unknown) => failed(s, error));
  renderSoon();
}

/**
 * Streams the selected run's lines with `subagent.attach` while it produces them, and stops the
 * stream of a run that is no longer selected. Where streaming is not possible the live poll reads them.
 */
function follow(s: Session, run: RunView | undefined): void {
  const wanted = run !== undefined && producing(run) && canStream(s, run.handle) ? run : undefined;
  if (s.following !== undefined && s.following.handle !== wanted?.handle) {
    s.following.stop.abort();
    s.following = undefined;
  }
  if (wanted === undefined || s.following !== undefined || session !== s) return;
  const stop = new AbortController();
  const following = { handle: wanted.handle, stop };
  s.following = following;
  const buffer = bufferOf(s, wanted.handle);
  // attach starts with the run's recent lines: they replace what the page had, so nothing shows twice.
  buffer.reset();
  s.api
    .op(
      'query',
      'subagent.attach',
      { handle: wanted.handle },
      {
        signal: stop.signal,
        onNotification(notification) {
          if (stop.signal.aborted) return;
          const entry = notifiedEntry(notification);
          if (entry !== undefined) return onRunEvent(s, wanted.handle, entry);
          const line = lineOfNotification(notification);
          if (line === undefined || stop.signal.aborted) return;
          buffer.push(line);
          renderSoon();
        },
      },
    )
    .then(
      (status) => {
        if (!stop.signal.aborted) remember(s, status);
      },
      (error) => {
        if (stop.signal.aborted) return;
        // The stream broke (or was refused): this run's lines come by polling from now on.
        s.polled.add(wanted.handle);
        if (error instanceof PageError && error.code === 'unauthorized') failed(s, error);
      },
    )
    .finally(() => {
      if (s.following !== following) return;
      s.following = undefined;
      render();
    });
}

async function refreshRuns(s: Session): Promise<void> {
  if (readsInventory(s)) {
    const listed = new Set<string>();
    // The inventory is paged: each page's runs, until it has no next cursor.
    let cursor: string | undefined;
    for (let page = 0; page < 100; page++) {
      const uri =
        cursor === undefined ? 'agent://inventory' : `agent://inventory?cursor=${encodeURIComponent(cursor)}`;
      const inventory = await s.api.read(uri);
      for (const status of (inventory.subagents ?? []) as Json[]) {
        const run = remember(s, status);
        if (run !== undefined) listed.add(run.handle);
      }
      if (typeof inventory.nextCursor !== 'string' || inventory.nextCursor === cursor) break;
      cursor = inventory.nextCursor;
    }
    // Evicted runs leave the inventory; handed ones stay while agentd still knows them.
    for (const handle of s.runs.keys())
      if (!listed.has(handle) && !s.handed.has(handle)) s.runs.delete(handle);
  }
  for (const handle of s.handed) if (!readsInventory(s)) await refreshRun(s, handle);
}

async function refreshRun(s: Session, handle: string): Promise<void> {
  try {
    remember(s, await s.api.read(`agent://subagent/${handle}`));
  } catch (error) {
    if (!(error instanceof PageError) || error.code !== 'rpc') throw error;
    s.runs.delete(handle);
    s.handed.delete(handle);
  }
}

async function refreshStatus(s: Session): Promise<void> {
  s.status = await s.api.read('agent://status');
}

/** Runs `task` every `ms` until the session stops; failures show as a notice and are retried. */
function every(s: Session, ms: number, task: () => Promise<void>): void {
  let busy = false;
  const timer = setInterval(() => {
    if (busy || session !== s) return;
    busy = true;
    task()
      .then(() => render())
      .catch((error) => failed(s, error))
      .finally(() => {
        busy = false;
      });
  }, ms);
  s.stops.push(() => clearInterval(timer));
}

function failed(s: Session, error: unknown): void {
  if (error instanceof PageError && error.code === 'unauthorized' && !inHost) {
    sessionStorage.removeItem(TOKEN_KEY);
    stop(s);
    askForToken('The token was refused; enter a valid one.');
    return;
  }
  showNotice(`agentd did not answer: ${problem(error)}`);
}

function stop(s: Session): void {
  s.following?.stop.abort();
  s.following = undefined;
  for (const fn of s.stops) fn();
  s.stops.length = 0;
  if (session === s) session = undefined;
}

function askForToken(message?: string): void {
  dom.signin.hidden = false;
  dom.spawn.hidden = true;
  showNotice(message ?? "Or sign in as this machine's user: run `agentd ui --open`.");
  (dom.signin.elements.namedItem('token') as HTMLInputElement).focus();
}

function showControls(s: Session): void {
  history.offer(readsHistory(s));
  offerAgents(((s.capabilities.agents ?? []) as { name: string }[]).map((a) => a.name));
  const operator = isOperator(s);
  dom.spawn.hidden = !operator;
  if (operator) {
    const select = dom.spawn.elements.namedItem('agent') as HTMLSelectElement;
    const agents = (s.capabilities.agents ?? []) as { name: string; description?: string }[];
    select.replaceChildren(
      ...agents.map((agent) => {
        const option = document.createElement('option');
        option.value = agent.name;
        option.textContent = agent.name;
        option.selected = agent.name === s.capabilities.defaultAgent;
        return option;
      }),
    );
  }
  if (!readsInventory(s) && !inHost)
    showNotice(
      signInFailure +
        "You are an anonymous, restricted peer here: the fleet and its controls are for operators. To sign in as this machine's user, run `agentd ui --open` (or open the URL `agentd ui` prints).",
    );
  else showNotice(undefined);
}

function select(s: Session, handle: string | undefined): void {
  s.selected = handle;
  render();
}

async function start(connection: Connection, handed?: Json, withToken = false): Promise<void> {
  let exposure: Exposure = 'classic';
  const s: Session = {
    connection,
    api: agentdApi(connection, () => exposure),
    exposure,
    capabilities: {},
    status: undefined,
    runs: new Map(),
    stored: new Map(),
    handed: new Set(),
    outputs: new Map(),
    events: new Map(),
    wholeLogs: new Map(),
    answering: new Set(),
    selected: undefined,
    following: undefined,
    polled: new Set(),
    detailed: new Set(),
    stops: [],
  };
  session = s;
  try {
    s.capabilities = await s.api.read('agent://capabilities');
  } catch (error) {
    stop(s);
    if (error instanceof PageError && error.code === 'unauthorized' && !inHost) {
      if (withToken) sessionStorage.removeItem(TOKEN_KEY);
      askForToken(withToken ? 'The token was refused; enter a valid one.' : undefined);
    } else showNotice(`agentd did not answer: ${problem(error)}`);
    return;
  }
  exposure = s.capabilities.exposure === 'codemode' ? 'codemode' : 'classic';
  s.exposure = exposure;
  dom.signin.hidden = true;
  history.reset();
  showControls(s);
  if (handed !== undefined) adopt(s, handed);
  await Promise.all([refreshStatus(s), refreshRuns(s)]).catch((error) => failed(s, error));
  render();
  every(s, STATUS_POLL_MS, () => refreshStatus(s));
  const watched = readsInventory(s)
    ? ['agent://inventory', 'agent://capabilities']
    : ['agent://capabilities'];
  if (connection.watch !== undefined) {
    let queued = false;
    s.stops.push(
      connection.watch(watched, (uri) => {
        if (queued || session !== s) return;
        queued = true;
        // Several updates in a burst become one read.
        queueMicrotask(() => {
          queued = false;
          const work =
            uri === 'agent://capabilities'
              ? s.api.read(uri).then((caps) => {
                  s.capabilities = caps;
                  showControls(s);
                })
              : refreshRuns(s);
          work.then(render, (error) => failed(s, error));
        });
      }),
    );
  } else {
    every(s, STATUS_POLL_MS / 2, () => refreshRuns(s));
  }
  // The fallback where the selected live run cannot be streamed: it is read often, its lines arriving with each read.
  every(s, LIVE_POLL_MS, async () => {
    const run = s.selected === undefined ? undefined : s.runs.get(s.selected);
    if (run !== undefined && !run.terminal && s.following?.handle !== run.handle)
      await refreshRun(s, run.handle);
  });
  const tick = setInterval(render, 1_000);
  s.stops.push(() => clearInterval(tick));
}

/** A run handed to the page (a tool result in a host, or its own spawn): the page may follow and cancel it. */
function adopt(s: Session, status: Json): void {
  const run = remember(s, status);
  if (run === undefined) return;
  s.handed.add(run.handle);
  select(s, run.handle);
}

function wire(): void {
  history.wire();
  dom.runs.addEventListener('click', (event) => {
    const li = (event.target as HTMLElement).closest<HTMLLIElement>('li[data-run-handle]');
    if (li !== null && session !== undefined) select(session, li.dataset.runHandle);
  });
  dom.runs.addEventListener('keydown', (event) => {
    if (event.key !== 'ArrowDown' && event.key !== 'ArrowUp') return;
    const buttons = Array.from(dom.runs.querySelectorAll('button'));
    const at = buttons.indexOf(document.activeElement as HTMLButtonElement);
    const next = buttons[at + (event.key === 'ArrowDown' ? 1 : -1)];
    if (next !== undefined) {
      event.preventDefault();
      next.focus();
    }
  });
  dom.events.addEventListener('click', (event) => {
    const button = (event.target as HTMLElement).closest<HTMLButtonElement>('button[data-action="approve"]');
    const s = session;
    const handle = s?.selected;
    if (button === null || s === undefined || handle === undefined) return;
    answerPrompt(s.api, eventsOf(s, handle), handle, button.dataset, s.answering, {
      render,
      notice: showNotice,
      settled: () => refreshRun(s, handle).then(render, (error: unknown) => failed(s, error)),
    });
  });
  dom.cancel.addEventListener('click', () => {
    const s = session;
    const handle = s?.selected;
    if (s === undefined || handle === undefined) return;
    dom.cancel.disabled = true;
    s.api
      .op('command', 'subagent.cancel', { handle, reason: 'cancelled from the agentd page' })
      .then(async (status) => {
        remember(s, status);
        await refreshStatus(s);
        render();
      })
      .catch((error) => showNotice(`cancel failed: ${problem(error)}`))
      .finally(() => {
        dom.cancel.disabled = false;
      });
  });
  dom.spawn.addEventListener('submit', (event) => {
    event.preventDefault();
    const s = session;
    if (s === undefined) return;
    const form = new FormData(dom.spawn);
    const args: Json = { instruction: String(form.get('instruction') ?? ''), async: true };
    const agent = form.get('agent');
    if (typeof agent === 'string' && agent !== '') args.agent = agent;
    s.api
      .op('command', 'subagent.spawn', args)
      .then((status) => {
        (dom.spawn.elements.namedItem('instruction') as HTMLInputElement).value = '';
        adopt(s, status);
        showNotice(undefined);
        return refreshStatus(s).then(render);
      })
      .catch((error) => showNotice(`spawn failed: ${problem(error)}`));
  });
  dom.signin.addEventListener('submit', (event) => {
    event.preventDefault();
    const token = String(new FormData(dom.signin).get('token') ?? '').trim();
    if (token === '') return;
    sessionStorage.setItem(TOKEN_KEY, token);
    (dom.signin.elements.namedItem('token') as HTMLInputElement).value = '';
    showNotice(undefined);
    if (session !== undefined) stop(session);
    void start(httpConnection(endpoint, token), undefined, true);
  });
}

async function main(): Promise<void> {
  wire();
  if (!inHost) {
    const traded = await signInFromAddress().catch((error: unknown) => {
      signInFailure = `${problem(error)}. `;
      return undefined;
    });
    if (traded !== undefined) sessionStorage.setItem(TOKEN_KEY, traded);
    const token = sessionStorage.getItem(TOKEN_KEY) ?? undefined;
    await start(httpConnection(endpoint, token), undefined, token !== undefined);
    return;
  }
  let early: Json | undefined;
  const connection = await connectHost({
    onToolResult(result) {
      const run = runOfToolResult(result);
      if (run === undefined) return;
      if (session === undefined) early = run;
      else {
        adopt(session, run);
        void refreshRun(session, run.handle as string).then(render);
      }
    },
    onTheme(theme) {
      document.documentElement.dataset.theme = theme;
    },
  });
  await start(connection, early);
}

void main();

/**
 * Every client command that talks to a running daemon, by kind. The table's type names each kind
 * of parse-args.ts's ClientCommand, so a new kind without a handler here does not compile.
 */
import { approveRun, closeRun } from './approve-close.js';
import { attachRun } from './attach.js';
import { callMethod, listTools } from './call.js';
import { cancelRuns } from './cancel.js';
import type { ClientKind, CommandHandler } from './command-context.js';
import { daemonEvents } from './events.js';
import { runLogs } from './history.js';
import { drain, lameDuck, pause, reload, resume } from './operator.js';
import { runs } from './runs.js';
import { sendTurn } from './send.js';
import { spawnRun } from './spawn.js';
import { status } from './status.js';
import { uiCommand } from './ui.js';
import { waitRun } from './wait.js';

/** `workspace prune` connects (or not) itself: it also works without a daemon. */
export type ConnectedKind = Exclude<ClientKind, 'workspace-prune'>;

const COMMANDS: { [K in ConnectedKind]: CommandHandler<K> } = {
  call: callMethod,
  tools: listTools,
  status,
  runs,
  logs: runLogs,
  spawn: spawnRun,
  send: sendTurn,
  attach: attachRun,
  wait: waitRun,
  cancel: cancelRuns,
  approve: approveRun,
  close: closeRun,
  events: daemonEvents,
  drain,
  'lame-duck': lameDuck,
  pause,
  resume,
  reload,
  ui: uiCommand,
};

/** The handler of `kind`; generic so a command of that kind can be passed to it as it is. */
export function handlerOf<K extends ConnectedKind>(kind: K): CommandHandler<K> {
  return COMMANDS[kind];
}

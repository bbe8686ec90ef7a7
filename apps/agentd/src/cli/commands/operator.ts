/** The daemon's operator switches: `drain`, `lame-duck`, `pause`, `resume`, `reload`. */
import { isJsonObject, type JsonObject } from '@agentd/rpc-frame';
import { callOperation } from '../operation-call.js';
import { EXIT } from '../output.js';
import type { CommandHandler } from './command-context.js';

export const drain: CommandHandler<'drain'> = async (command, { operate }) =>
  operate(
    'command',
    'drain',
    command.deadlineMs === undefined ? {} : { deadlineMs: command.deadlineMs },
    (v) =>
      `draining: running subagents get ${isJsonObject(v) ? String(v.deadlineMs) : '?'} ms, then agentd exits\n`,
  );

export const lameDuck: CommandHandler<'lame-duck'> = async (command, { operate }) =>
  operate('command', 'lame-duck', { ready: command.ready }, (v) =>
    isJsonObject(v) && v.ready === true ? 'ready\n' : 'lame duck: not ready (still serving)\n',
  );

/** `pause` and `resume` both answer with whether spawns are now refused. */
const pausedText = (v: unknown) =>
  isJsonObject(v) && v.paused === true ? 'paused: new spawns and turns are refused\n' : 'accepting spawns\n';

export const pause: CommandHandler<'pause'> = async (_command, { operate }) =>
  operate('command', 'pause', {}, pausedText);

export const resume: CommandHandler<'resume'> = async (_command, { operate }) =>
  operate('command', 'resume', {}, pausedText);

function reloadText(value: unknown): string {
  const r = value as JsonObject;
  if (r.applied !== true)
    return `rejected; the running config stays:\n${(r.issues as string[]).map((i) => `  ${i}\n`).join('')}`;
  const changed = (r.changed as string[]).join(', ') || 'nothing';
  const restart = (r.restartRequired as string[]).join(', ');
  return `applied (generation ${String(r.generation)}): changed ${changed}${restart === '' ? '' : `; restart required for ${restart}`}\n`;
}

/** A rejected config is shown like an answer, yet the command failed: exit 1. */
export const reload: CommandHandler<'reload'> = async (_command, { client, show, refused }) => {
  const { isError, value } = await callOperation(client, 'command', 'reload', {});
  if (isError) return refused(value);
  show(value, reloadText);
  return isJsonObject(value) && value.applied === true ? EXIT.ok : EXIT.failed;
};

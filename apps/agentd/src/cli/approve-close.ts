/** `agentd approve RUN [REQUEST_ID] [--deny] [--always]` and `agentd close RUN`. */
import { isJsonObject, type JsonObject } from '@agentd/rpc-frame';
import { pretty, statusText } from './format.js';
import { inert } from './inert-text.js';
import type { McpClient } from './mcp-client.js';
import { callOperation } from './operation-call.js';
import type { ClientCommand } from './parse-args.js';
import { paintState, type TermStyle } from './term-style.js';

interface Output {
  out(text: string): void;
  err(text: string): void;
}

function refused(io: Output, json: boolean, value: unknown): number {
  if (json) io.out(pretty({ error: value }));
  io.err(`agentd: ${inert(typeof value === 'string' ? value : JSON.stringify(value))}\n`);
  return 1;
}

/** Answers a pending permission prompt; says what was decided, or why nothing was. */
export async function approveRun(
  client: McpClient,
  command: Extract<ClientCommand, { kind: 'approve' }>,
  io: Output,
  style: TermStyle,
): Promise<number> {
  const args: JsonObject = { handle: command.handle, decision: command.deny ? 'deny' : 'allow' };
  if (command.requestId !== undefined) args.requestId = command.requestId;
  if (command.always) args.always = true;
  const { isError, value } = await callOperation(client, 'command', 'subagent.approve', args);
  if (isError) return refused(io, command.json, value);
  if (command.json) {
    io.out(pretty(value));
    return 0;
  }
  const answer = isJsonObject(value) ? value : {};
  const decision = isJsonObject(answer.decision) ? answer.decision : {};
  const kind = String(decision.kind ?? decision.outcome ?? '?');
  const state = kind.startsWith('allow') ? 'succeeded' : 'failed';
  io.out(
    `permission ${inert(String(answer.requestId))}: ${paintState(style.colourOut, state, inert(kind))}${
      typeof decision.optionId === 'string' ? ` (option ${inert(decision.optionId)})` : ''
    }\n`,
  );
  return 0;
}

/** Ends a conversation gracefully and prints its final status. */
export async function closeRun(
  client: McpClient,
  command: Extract<ClientCommand, { kind: 'close' }>,
  io: Output,
  style: TermStyle,
): Promise<number> {
  const { isError, value } = await callOperation(client, 'command', 'subagent.close', {
    handle: command.handle,
  });
  if (isError) return refused(io, command.json, value);
  io.out(command.json ? pretty(value) : statusText(value, style.colourOut, style.agentColours));
  return 0;
}

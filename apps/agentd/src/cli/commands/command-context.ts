/** What every client command's handler is given: the connected daemon, the output, how to show answers. */
import type { JsonObject } from '@agentd/rpc-frame';
import { pretty } from '../format.js';
import type { McpClient } from '../mcp-client.js';
import { callOperation } from '../operation-call.js';
import { EXIT, type Output, refused } from '../output.js';
import type { ClientCommand } from '../parse-args.js';
import { PLAIN_STYLE, type TermStyle } from '../term-style.js';

/** What the process gives a client command (cli.ts). */
export interface ClientContext {
  env: NodeJS.ProcessEnv;
  cwd: string;
  version: string;
  io: Output;
  /** The instruction or message given as `-`. */
  readStdin: () => Promise<string>;
  /** Terminal or pipe (term-style.ts); plain when absent. */
  style?: TermStyle;
}

/** Built once per command from its flags, so that each handler is only what is its own. */
export interface CommandContext {
  client: McpClient;
  io: Output;
  env: NodeJS.ProcessEnv;
  /** The terminal's style, with the agent's colours only when asked for and shown. */
  style: TermStyle;
  /** The answer as JSON with `--json`, else as `text` renders it. */
  show(value: unknown, text: (value: unknown) => string): void;
  /** Calls an operation and shows its answer (exit 0), or its refusal (exit 1). */
  operate(
    kind: 'query' | 'command',
    id: string,
    args: JsonObject,
    text?: (value: unknown) => string,
  ): Promise<number>;
  /** A refusal or failure shown as such: exit 1. */
  refused(value: unknown): number;
}

export type ClientKind = ClientCommand['kind'];
export type CommandOf<K extends ClientKind> = Extract<ClientCommand, { kind: K }>;
export type CommandHandler<K extends ClientKind> = (
  command: CommandOf<K>,
  context: CommandContext,
) => Promise<number>;

export function commandContext(
  client: McpClient,
  command: ClientCommand,
  given: ClientContext,
): CommandContext {
  const { io } = given;
  const base = given.style ?? PLAIN_STYLE;
  // An agent's colours only ever reach a terminal that shows colour, and only when asked for.
  const style: TermStyle = { ...base, agentColours: command.agentColours === true && base.colourOut };
  const show = (value: unknown, text: (value: unknown) => string) =>
    io.out(command.json ? pretty(value) : text(value));
  return {
    client,
    io,
    env: given.env,
    style,
    show,
    refused: (value) => refused(io, command.json, value),
    async operate(kind, id, args, text = pretty) {
      const { isError, value } = await callOperation(client, kind, id, args);
      if (isError) return refused(io, command.json, value);
      show(value, text);
      return EXIT.ok;
    },
  };
}

/**
 * The two-hop floor: the least a relay between agents and MCP callers can do, in a bare Node
 * process. It serves agentd's callers (`stream-caller.ts`, unchanged) on a unix socket: for each
 * connection's `tools/call` it spawns the agent, asks for its stream, and turns each of the
 * agent's lines into a `notifications/progress` (parsed, re-encoded, written on). No run, no ring
 * of recent events, no validation: what is left of agentd's latency beside it is what agentd does
 * per event, and what separates it from the one-hop floor (`stream-floor.ts`) is the second
 * wake-up and write any relay pays. With LOG_DIR it also keeps what agentd's history must (a log
 * per run that survives `kill -9` with at most the last event lost): each line is appended to its
 * run's file as it is forwarded.
 * Usage: `node dist/supervisor/stream-relay.js SOCKET AGENT [LOG_DIR]`; prints `listening` once it accepts.
 */
import { spawn } from 'node:child_process';
import { openSync, writeSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import { createInterface } from 'node:readline';

const [socketPath, agent, logDir] = process.argv.slice(2) as [string, string, string?];
let runs = 0;

interface Call {
  id: number;
  params: { arguments: { instruction: string }; _meta: { progressToken: string | number } };
}

interface AgentLine {
  id?: number;
  method?: string;
  params?: { progress?: number; total?: number; message?: string };
}

const write = (socket: Socket, message: Record<string, unknown>): void => {
  socket.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
};

function relay(socket: Socket, call: Call): void {
  const child = spawn(process.execPath, [agent], { stdio: ['pipe', 'pipe', 'inherit'] });
  const progressToken = call.params._meta.progressToken;
  const log = logDir === undefined ? undefined : openSync(`${logDir}/${++runs}.jsonl`, 'a', 0o600);
  const lines = createInterface({ input: child.stdout, crlfDelay: Number.POSITIVE_INFINITY });
  lines.on('line', (line) => {
    const message = JSON.parse(line) as AgentLine;
    if (message.method === 'event') {
      const { progress, total, message: text } = message.params ?? {};
      write(socket, {
        method: 'notifications/progress',
        params: { progressToken, progress, total, message: text },
      });
      if (log !== undefined) writeSync(log, `${line}\n`);
    } else if (message.id === 1) {
      write(socket, { id: call.id, result: { content: [], structuredContent: { state: 'succeeded' } } });
      child.stdin.end();
    }
  });
  const run = {
    jsonrpc: '2.0',
    id: 1,
    method: 'run',
    params: { instruction: call.params.arguments.instruction },
  };
  child.stdin.write(`${JSON.stringify(run)}\n`);
}

const server = createServer((socket) => {
  socket.on('error', () => socket.destroy());
  createInterface({ input: socket, crlfDelay: Number.POSITIVE_INFINITY }).once('line', (line) =>
    relay(socket, JSON.parse(line) as Call),
  );
});
server.listen(socketPath, () => process.stdout.write('listening\n'));
process.once('SIGTERM', () => process.exit(0));

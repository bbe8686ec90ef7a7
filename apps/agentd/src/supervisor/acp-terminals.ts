/**
 * The ACP client's terminals: real child processes started in the run's working directory (or a
 * directory inside it), each in its own process group, output bounded (the newest bytes kept),
 * all killed when the run ends. A terminal is not a sandbox: the command can do what the daemon's
 * user can; the profile's `allowTerminal` is the gate.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import type {
  CreateTerminalRequest,
  CreateTerminalResponse,
  TerminalExitStatus,
  TerminalOutputResponse,
} from '@agentclientprotocol/sdk/unstable';
import { RequestError } from '@agentclientprotocol/sdk/unstable';
import { resolveInside } from './acp-workspace.js';
import { ByteTail } from './byte-tail.js';

/** Live terminals per run: an agent cannot start more than this many at once. */
const MAX_TERMINALS = 16;

interface Terminal {
  child: ChildProcess;
  output: ByteTail;
  total: number;
  limit: number;
  exit?: TerminalExitStatus;
  exited: Promise<TerminalExitStatus>;
}

function killGroup(child: ChildProcess): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

export class Terminals {
  private readonly live = new Map<string, Terminal>();
  private next = 0;
  private closed = false;

  /** `root` is a real path; `maxOutputBytes` bounds what a terminal keeps. */
  constructor(
    private readonly root: string,
    private readonly maxOutputBytes: number,
  ) {}

  async create(params: CreateTerminalRequest): Promise<CreateTerminalResponse> {
    if (this.closed) throw RequestError.invalidRequest(undefined, 'the run has ended');
    if (this.live.size >= MAX_TERMINALS)
      throw RequestError.invalidRequest(undefined, `at most ${MAX_TERMINALS} terminals at once`);
    const cwd = params.cwd == null ? this.root : await resolveInside(this.root, params.cwd);
    const env: NodeJS.ProcessEnv = { ...process.env };
    for (const variable of params.env ?? []) env[variable.name] = variable.value;
    // A command line without args is a shell command line (how agents commonly send one).
    const args = params.args ?? [];
    const [command, argv] = args.length === 0 ? ['/bin/sh', ['-c', params.command]] : [params.command, args];
    const limit = Math.min(params.outputByteLimit ?? this.maxOutputBytes, this.maxOutputBytes);
    const child = spawn(command, argv, { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    const terminal: Terminal = {
      child,
      output: new ByteTail(limit),
      total: 0,
      limit,
      exited: new Promise((resolve) => {
        child.once('error', (error) =>
          resolve({ exitCode: 127, signal: null, _meta: { error: error.message } }),
        );
        child.once('exit', (exitCode, signal) => {
          killGroup(child);
          resolve({ exitCode, signal });
        });
      }),
    };
    void terminal.exited.then((status) => {
      terminal.exit = status;
    });
    const onData = (chunk: Buffer): void => {
      terminal.total += chunk.length;
      terminal.output.push(chunk);
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    const id = `term-${++this.next}`;
    this.live.set(id, terminal);
    if (this.closed) killGroup(child);
    return { terminalId: id };
  }

  output(terminalId: string): TerminalOutputResponse {
    const terminal = this.get(terminalId);
    const text = terminal.output.text();
    const truncated = terminal.total > terminal.limit;
    return {
      output: truncated ? text.replace(/^…/, '') : text,
      truncated,
      ...(terminal.exit === undefined ? {} : { exitStatus: terminal.exit }),
    };
  }

  async waitForExit(terminalId: string, signal: AbortSignal): Promise<TerminalExitStatus> {
    const terminal = this.get(terminalId);
    return await new Promise((resolve, reject) => {
      const onAbort = (): void => reject(RequestError.requestCancelled(undefined, 'the wait was cancelled'));
      if (signal.aborted) return onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      void terminal.exited.then((status) => {
        signal.removeEventListener('abort', onAbort);
        resolve(status);
      });
    });
  }

  kill(terminalId: string): void {
    killGroup(this.get(terminalId).child);
  }

  release(terminalId: string): void {
    killGroup(this.get(terminalId).child);
    this.live.delete(terminalId);
  }

  /** The run ended: every terminal's process group is killed, none can be created. */
  closeAll(): void {
    this.closed = true;
    for (const terminal of this.live.values()) killGroup(terminal.child);
    this.live.clear();
  }

  private get(terminalId: string): Terminal {
    const terminal = typeof terminalId === 'string' ? this.live.get(terminalId) : undefined;
    if (terminal === undefined) throw RequestError.resourceNotFound(`terminal ${String(terminalId)}`);
    return terminal;
  }
}

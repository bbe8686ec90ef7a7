#!/usr/bin/env node
/** agentd's command-line entry: the daemon, `agentd stdio`, config tooling and the operator client. */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type Command, parseArgs, UsageError } from './cli/parse-args.js';
import { ConfigError } from './config/config-error.js';

// Each command loads only what it needs: client commands start fast, the daemon loads everything.

const VERSION = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

const io = {
  out: (text: string) => process.stdout.write(text),
  err: (text: string) => process.stderr.write(text),
};

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

async function run(command: Command): Promise<number | undefined> {
  switch (command.kind) {
    case 'help':
      io.out(command.text);
      return 0;
    case 'version':
      io.out(`agentd ${VERSION}\n`);
      return 0;
    case 'config-schema': {
      const { CONFIG_SCHEMA } = await import('./config/config-schema.js');
      io.out(`${JSON.stringify(CONFIG_SCHEMA, null, 2)}\n`);
      return 0;
    }
    case 'config-check': {
      const { resolveConfig } = await import('./config/resolve-config.js');
      // Checks the file as the daemon would load it (with built-in defaults), ignoring env and flags.
      const resolved = resolveConfig({
        configPath: command.file,
        // Only what the defaults need (the socket dir): AGENTD_* variables are not the file's business.
        env:
          process.env.XDG_RUNTIME_DIR === undefined ? {} : { XDG_RUNTIME_DIR: process.env.XDG_RUNTIME_DIR },
        flags: new Map(),
        serveDefaults: true,
        cwd: process.cwd(),
      });
      io.out(
        `${resolved.configPath}: valid (${Object.keys(resolved.config.agents).length} agent profiles, serve ${resolved.config.serve.join(', ')})\n`,
      );
      return 0;
    }
    case 'serve': {
      if (command.stdio) {
        // The user's daemon serves the host when it runs: one fleet, its runs visible everywhere.
        const { joinDaemon } = await import('./cli/stdio-bridge.js');
        const code = await joinDaemon(command, {
          env: process.env,
          cwd: process.cwd(),
          io,
          stdin: process.stdin,
          stdout: process.stdout,
          cliPath: fileURLToPath(import.meta.url),
        });
        if (code !== undefined) return code;
      }
      // Resolves with the exit code once the daemon has shut down.
      const { startDaemon } = await import('./daemon/start-daemon.js');
      return startDaemon(command, { env: process.env, cwd: process.cwd(), version: VERSION, io });
    }
    case 'client': {
      const { runClientCommand } = await import('./cli/client-commands.js');
      const { termStyle } = await import('./cli/term-style.js');
      return runClientCommand(command.command, {
        env: process.env,
        cwd: process.cwd(),
        version: VERSION,
        io,
        readStdin,
        style: termStyle(process.env, process.stdout.isTTY === true, process.stderr.isTTY === true),
      });
    }
  }
}

/** `agentd status | head`: a reader that went away is not an error worth a stack trace. */
function exitQuietlyOnClosedPipe(): void {
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw error;
  });
}

async function main(): Promise<void> {
  exitQuietlyOnClosedPipe();
  let code: number | undefined;
  try {
    code = await run(parseArgs(process.argv.slice(2)));
  } catch (error) {
    if (error instanceof UsageError) {
      io.err(`agentd: ${error.message}\n`);
      code = 2;
    } else if (error instanceof ConfigError) {
      io.err(`agentd: ${error.message}\n`);
      code = 2;
    } else {
      io.err(`agentd: ${error instanceof Error ? error.message : String(error)}\n`);
      code = 1;
    }
  }
  if (code !== undefined) process.exitCode = code;
  // A stopped daemon exits even if a stray handle lingers; pipes get a moment to flush first.
  setTimeout(() => process.exit(process.exitCode ?? 0), 1_000).unref();
}

await main();

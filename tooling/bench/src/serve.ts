/** Child entry: `node dist/serve.js <impl> <transport> [socketPath]` starts one server until SIGTERM or stdin EOF. */
import type { ChildTransport, Impl, ServerLaunch } from './servers/launch.js';

type Launcher = (launch: ServerLaunch) => Promise<void>;

// Imported on demand: a server process loads its own stack only, so cold start and RSS are its own.
const LAUNCHERS: Readonly<Record<Impl, () => Promise<Launcher>>> = {
  agentd: async () => (await import('./servers/agentd-server.js')).launchAgentd,
  'agentd-codemode': async () => (await import('./servers/agentd-server.js')).launchAgentd,
  'agentd-fetch': async () => (await import('./servers/agentd-server.js')).launchAgentd,
  'agentd-bun': async () => (await import('./servers/agentd-server.js')).launchAgentd,
  'sdk-v1': async () => (await import('./servers/sdk-v1-server.js')).launchSdkV1,
  'sdk-v2': async () => (await import('./servers/sdk-v2-server.js')).launchSdkV2,
  floor: async () => (await import('./servers/floor-server.js')).launchFloor,
};
const TRANSPORTS: readonly ChildTransport[] = ['stdio', 'unix', 'http', 'http-stateless'];

const [impl, transport, socketPath = ''] = process.argv.slice(2);
const loadLauncher = LAUNCHERS[impl as Impl];
if (loadLauncher === undefined || !TRANSPORTS.includes(transport as ChildTransport)) {
  process.stderr.write(
    'usage: serve.js <agentd|agentd-codemode|agentd-fetch|agentd-bun|sdk-v1|sdk-v2|floor> <stdio|unix|http|http-stateless>\n',
  );
  process.exit(2);
}

const stopped = new Promise<void>((resolve) => {
  process.once('SIGTERM', resolve);
  process.once('SIGINT', resolve);
  // A stdio server's session ends with stdin; the listeners ignore stdin.
  if (transport === 'stdio') process.stdin.once('end', resolve);
});

const launcher = await loadLauncher();
const serving = launcher({
  impl: impl as Impl,
  transport: transport as ChildTransport,
  socketPath,
  ready: (info) => process.stdout.write(`${JSON.stringify({ ready: true, ...info })}\n`),
  stopped,
});
await Promise.race([serving, stopped]);
// process.exit (not a signal death) so --cpu-prof profiles are written.
process.exit(0);

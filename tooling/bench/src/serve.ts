/** Child entry: `node dist/serve.js <impl> <transport> [socketPath]` starts one server until SIGTERM or stdin EOF. */
import { launchAgentd } from './servers/agentd-server.js';
import { launchFloor } from './servers/floor-server.js';
import type { ChildTransport, Impl, ServerLaunch } from './servers/launch.js';
import { launchSdkV1 } from './servers/sdk-v1-server.js';
import { launchSdkV2 } from './servers/sdk-v2-server.js';

const LAUNCHERS: Readonly<Record<Impl, (launch: ServerLaunch) => Promise<void>>> = {
  agentd: launchAgentd,
  'agentd-codemode': launchAgentd,
  'sdk-v1': launchSdkV1,
  'sdk-v2': launchSdkV2,
  floor: launchFloor,
};
const TRANSPORTS: readonly ChildTransport[] = ['stdio', 'unix', 'http', 'http-stateless'];

const [impl, transport, socketPath = ''] = process.argv.slice(2);
const launcher = LAUNCHERS[impl as Impl];
if (launcher === undefined || !TRANSPORTS.includes(transport as ChildTransport)) {
  process.stderr.write(
    'usage: serve.js <agentd|agentd-codemode|sdk-v1|sdk-v2|floor> <stdio|unix|http|http-stateless>\n',
  );
  process.exit(2);
}

const stopped = new Promise<void>((resolve) => {
  process.once('SIGTERM', resolve);
  process.once('SIGINT', resolve);
  // A stdio server's session ends with stdin; the listeners ignore stdin.
  if (transport === 'stdio') process.stdin.once('end', resolve);
});

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

// A second process on the bus (built packages): a registry whose subscriber on `agent://shared`
// prints what it receives as JSON lines; `raise <uri>` on stdin raises a kept update here.
import { createInterface } from 'node:readline';
import { RedisConnection, RedisEventBus } from '@agentd/redis';
import { SubscriptionRegistry } from '@agentd/subscriptions';

const connection = await RedisConnection.connect({ url: process.env.REDIS_URL });
const bus = await RedisEventBus.create(connection);
const registry = new SubscriptionRegistry({ bus });
registry.register('child-connection', 'agent://shared', {
  id: 'child-writer',
  closed: false,
  write(message) {
    process.stdout.write(`${JSON.stringify({ received: message })}\n`);
    return true;
  },
  close() {},
});
await bus.ready();
process.stdout.write(`${JSON.stringify({ ready: bus.memberId })}\n`);
for await (const line of createInterface({ input: process.stdin })) {
  const [command, uri] = line.split(' ');
  if (command === 'raise') registry.notifyUpdatedKeep(uri);
  if (command === 'quit') break;
}
await bus.close();
await connection.close();

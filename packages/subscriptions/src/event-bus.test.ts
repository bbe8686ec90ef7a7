/** The registry's bus seam on the in-memory hub: remote events applied with local semantics, nothing echoed to the origin. */
import { type JsonRpcMessage, notification } from '@agentd/rpc-frame';
import { describe, expect, it } from 'vitest';
import { MemoryEventHub } from './event-bus.js';
import type { PushWriter } from './push-writer.js';
import { SubscriptionRegistry } from './subscription-registry.js';

function writer(id: string): PushWriter & { messages: JsonRpcMessage[] } {
  const messages: JsonRpcMessage[] = [];
  return { id, messages, closed: false, write: (m) => messages.push(m) > 0, close: () => {} };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('SubscriptionRegistry with a bus', () => {
  it('applies another member’s one-shot update to its own subscribers and never echoes to the origin', async () => {
    const hub = new MemoryEventHub();
    const a = new SubscriptionRegistry({ bus: hub.member() });
    const b = new SubscriptionRegistry({ bus: hub.member() });
    const atA = writer('a');
    const atB = writer('b');
    a.register('ca', 'agent://x', atA);
    b.register('cb', 'agent://X/', atB);
    expect(a.notifyUpdated('agent://x')).toBe(1);
    await settle();
    expect(atA.messages).toEqual([notification('notifications/resources/updated', { uri: 'agent://x' })]);
    expect(atB.messages).toEqual([notification('notifications/resources/updated', { uri: 'agent://X/' })]);
    expect(a.subscriberCount('agent://x')).toBe(0);
    expect(b.subscriberCount('agent://x')).toBe(0);
  });

  it('stops receiving after leaveBus, and a registry without a bus stays local', async () => {
    const hub = new MemoryEventHub();
    const a = new SubscriptionRegistry({ bus: hub.member() });
    const b = new SubscriptionRegistry({ bus: hub.member() });
    const alone = new SubscriptionRegistry();
    const atB = writer('b');
    const atAlone = writer('alone');
    b.attach('cb', atB);
    alone.attach('c', atAlone);
    b.leaveBus();
    a.notifyListChanged('tools');
    await settle();
    expect(atB.messages).toEqual([]);
    expect(atAlone.messages).toEqual([]);
  });
});

import { LocalError } from '@agentd/rpc-frame';
import { describe, expect, it } from 'vitest';
import { PolicyBroker } from './permission-broker.js';
import type { PermissionRequest, PermissionSubject } from './run-event.js';

const request = (requestId: string): PermissionRequest => ({
  requestId,
  toolCall: {
    id: requestId,
    title: 'Write a.txt',
    kind: 'edit',
    status: 'pending',
    name: 'Write',
    input: '/w/a.txt',
  },
  options: [
    { optionId: 'allow', name: 'Allow', kind: 'allow_once' },
    { optionId: 'deny', name: 'Deny', kind: 'reject_once' },
  ],
});

const subject = (extra: Partial<PermissionSubject> = {}): PermissionSubject => ({
  handle: 'h1',
  runId: 'r1',
  agent: 'a',
  ...extra,
});

function codeOf(call: () => unknown): string {
  try {
    call();
  } catch (error) {
    expect(error).toBeInstanceOf(LocalError);
    return (error as LocalError).code;
  }
  throw new Error('expected a refusal');
}

describe('PolicyBroker', () => {
  it('decides by policy without asking', async () => {
    const broker = new PolicyBroker();
    const signal = new AbortController().signal;
    await expect(
      broker.decide(subject({ policy: { allow: ['edit'] } }), request('a'), signal),
    ).resolves.toEqual({
      outcome: 'selected',
      optionId: 'allow',
      kind: 'allow_once',
      by: 'policy',
    });
    await expect(
      broker.decide(subject({ policy: { default: 'deny' } }), request('b'), signal),
    ).resolves.toMatchObject({
      optionId: 'deny',
      by: 'policy',
    });
    expect(broker.pendingCount).toBe(0);
  });

  it('takes exactly one answer: the operator first, a late one is already decided', async () => {
    const broker = new PolicyBroker();
    const decision = broker.decide(subject(), request('q'), new AbortController().signal);
    expect(broker.pendingCount).toBe(1);
    expect(codeOf(() => broker.answer('h1', 'q', 'nope'))).toBe('invalid_request');
    expect(broker.answer('h1', 'q', { allow: false })).toMatchObject({ optionId: 'deny', by: 'operator' });
    await expect(decision).resolves.toMatchObject({ optionId: 'deny', by: 'operator' });
    expect(codeOf(() => broker.answer('h1', 'q', 'allow'))).toBe('already_decided');
    expect(codeOf(() => broker.answer('h1', 'never', 'allow'))).toBe('unknown_request');
    expect(codeOf(() => broker.answer('h2', 'q', 'allow'))).toBe('unknown_request');
    expect(broker.pendingCount).toBe(0);
  });

  it('asks the callers: the first that answers counts, one that cannot is skipped', async () => {
    const broker = new PolicyBroker();
    let released: AbortSignal | undefined;
    const decision = await broker.decide(
      subject({
        answerers: [
          async () => undefined,
          async () => 'allow',
          async (_request, signal) => {
            released = signal;
            return new Promise<string>(() => {});
          },
        ],
      }),
      request('c'),
      new AbortController().signal,
    );
    expect(decision).toMatchObject({ optionId: 'allow', by: 'caller' });
    expect(released?.aborted).toBe(true);
    expect(broker.pendingCount).toBe(0);
  });

  it('denies past the timeout and cancels with the turn', async () => {
    const broker = new PolicyBroker();
    await expect(
      broker.decide(subject({ policy: { timeoutMs: 20 } }), request('t'), new AbortController().signal),
    ).resolves.toMatchObject({ optionId: 'deny', by: 'timeout' });
    const turn = new AbortController();
    const pending = broker.decide(subject(), request('x'), turn.signal);
    turn.abort();
    await expect(pending).resolves.toEqual({ outcome: 'cancelled', by: 'cancelled' });
    expect(codeOf(() => broker.answer('h1', 'x', 'allow'))).toBe('already_decided');
    expect(broker.pendingCount).toBe(0);
  });
});

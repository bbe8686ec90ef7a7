import { describe, expect, it } from 'vitest';
import { parseAgentUri, subscriptionKey } from './agent-uri.js';

describe('parseAgentUri', () => {
  it('parses fixed resources, templates and the events query', () => {
    expect(parseAgentUri('agent://status')).toEqual({ kind: 'status' });
    expect(parseAgentUri(' agent://config/effective/ ')).toEqual({ kind: 'config-effective' });
    expect(parseAgentUri('agent://run/run_abc_12')).toEqual({ kind: 'run', id: 'run_abc_12' });
    expect(parseAgentUri('agent://subagent/sa_X-y_z')).toEqual({ kind: 'subagent', id: 'sa_X-y_z' });
    expect(parseAgentUri('agent://events?after=5&level=warn')).toMatchObject({
      kind: 'events',
      after: 5,
      level: 'warn',
    });
    expect(parseAgentUri('agent://events')).toMatchObject({ kind: 'events', after: 0, level: undefined });
    expect(parseAgentUri('agent://inventory')).toEqual({ kind: 'inventory', cursor: undefined });
    expect(parseAgentUri('agent://inventory?cursor=run_a_1')).toEqual({
      kind: 'inventory',
      cursor: 'run_a_1',
    });
  });

  it('rejects what agentd does not serve', () => {
    for (const uri of [
      'agentd://status',
      'agent://nope',
      'agent://run/',
      'agent://run/a/b',
      'agent://status?x=1',
      'agent://inventory?page=2',
      'agent://events?after=-1',
      'file:///etc/passwd',
    ]) {
      expect(parseAgentUri(uri)).toBeUndefined();
    }
  });

  it('keys every events query under one subscription', () => {
    expect(subscriptionKey('agent://events?level=warn')).toBe('agent://events');
    expect(subscriptionKey('agent://run/r1')).toBe('agent://run/r1');
    expect(subscriptionKey('agent://inventory?cursor=run_a')).toBe('agent://inventory');
  });
});

import { compileFilters } from '@agentd/dispatch';
import type { Peer } from '@agentd/server';
import { describe, expect, it } from 'vitest';
import { filterName } from './operation-spec.js';
import { buildOperations, type OperationHost } from './operations.js';
import { filtersByTrust, listenerTrust, seesManagement, trustOf } from './trust.js';

const host = {
  agents: () => [{ name: 'example' }],
  defaultAgent: () => 'example',
} as unknown as OperationHost;

const peer = (origin: Peer['origin'], transport: string, attributes: Record<string, unknown> = {}): Peer => ({
  origin,
  transport,
  connectionId: 'c',
  attributes,
});

describe('trustOf', () => {
  it('gives management to socket peers and bearer-authenticated HTTP peers only', () => {
    expect(trustOf(peer('management', 'unix'))).toBe('management');
    expect(trustOf(peer('management', 'vsock', { cid: 2, port: 1 }))).toBe('management');
    expect(trustOf(peer('management', 'http', { principal: 'ops' }))).toBe('management');
    expect(trustOf(peer('management', 'http', { principal: undefined }))).toBe('restricted');
    expect(trustOf(peer('stdio', 'stdio'))).toBe('restricted');
    expect(seesManagement(peer('management', 'http', {}))).toBe(false);
    expect(seesManagement(peer('management', 'unix'))).toBe(true);
  });

  it('labels listeners by the trust their peers get', () => {
    expect(listenerTrust('unix', false)).toBe('management');
    expect(listenerTrust('http', false)).toBe('restricted');
    expect(listenerTrust('http', true)).toBe('management');
    expect(listenerTrust('stdio', false)).toBe('restricted');
  });
});

describe('filtersByTrust', () => {
  const operations = buildOperations(host);
  const filters = filtersByTrust(operations);

  it('lets management peers see and call everything', () => {
    const management = compileFilters(filters.management);
    for (const op of operations) expect(management.toolVisible(filterName(op))).toBe(true);
    expect(management.resourceVisible('agent://inventory')).toBe(true);
  });

  it('hides every operator operation and management resource from restricted peers, and nothing else', () => {
    const stdio = compileFilters(filters.restricted);
    for (const op of operations) {
      expect(stdio.toolVisible(filterName(op))).toBe(!op.operator);
      expect(stdio.callRefusal(filterName(op), {}) === undefined).toBe(!op.operator);
    }
    expect(
      operations
        .filter((o) => o.operator)
        .map((o) => o.id)
        .sort(),
    ).toEqual(['cancel', 'drain', 'lame-duck', 'pause', 'reload', 'resume', 'workspace.prune']);
    for (const uri of [
      'agent://inventory',
      'agent://config/effective',
      'agent://events',
      'agent://events?after=3',
      'agent://events{?after,level}',
    ]) {
      expect(stdio.resourceVisible(uri)).toBe(false);
    }
    for (const uri of [
      'agent://status',
      'agent://capabilities',
      'agent://run/{runId}',
      'agent://subagent/{handle}',
    ]) {
      expect(stdio.resourceVisible(uri)).toBe(true);
    }
  });
});

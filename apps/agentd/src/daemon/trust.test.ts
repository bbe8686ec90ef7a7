import { compileFilters } from '@agentd/dispatch';
import { describe, expect, it } from 'vitest';
import { filterName } from './operation-spec.js';
import { buildOperations, type OperationHost } from './operations.js';
import { filtersByOrigin } from './trust.js';

const host = {
  agents: () => [{ name: 'example' }],
  defaultAgent: () => 'example',
} as unknown as OperationHost;

describe('filtersByOrigin', () => {
  const operations = buildOperations(host);
  const filters = filtersByOrigin(operations);

  it('lets management peers see and call everything', () => {
    const management = compileFilters(filters.management);
    for (const op of operations) expect(management.toolVisible(filterName(op))).toBe(true);
    expect(management.resourceVisible('agent://inventory')).toBe(true);
  });

  it('hides every operator operation and management resource from stdio peers, and nothing else', () => {
    const stdio = compileFilters(filters.stdio);
    for (const op of operations) {
      expect(stdio.toolVisible(filterName(op))).toBe(!op.operator);
      expect(stdio.callRefusal(filterName(op), {}) === undefined).toBe(!op.operator);
    }
    expect(
      operations
        .filter((o) => o.operator)
        .map((o) => o.id)
        .sort(),
    ).toEqual(['cancel', 'drain', 'lame-duck', 'pause', 'resume']);
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

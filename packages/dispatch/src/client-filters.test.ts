/** ClientFilters: glob forms, deny-wins visibility, deny-only meta tools, argument-value callability. */
import { describe, expect, it } from 'vitest';
import { compileFilters } from './client-filters.js';
import { compilePattern } from './glob.js';

describe('patterns', () => {
  it('supports *, prefix*, *suffix and exact', () => {
    expect(compilePattern('*')('anything')).toBe(true);
    expect(compilePattern('query_*')('query_servers')).toBe(true);
    expect(compilePattern('query_*')('command_servers')).toBe(false);
    expect(compilePattern('*_servers')('view_servers')).toBe(true);
    expect(compilePattern('*_servers')('view_server')).toBe(false);
    expect(compilePattern('exact')('exact')).toBe(true);
    expect(compilePattern('exact')('exactly')).toBe(false);
    // a star in the middle is literal, not a wildcard
    expect(compilePattern('a*b')('axxb')).toBe(false);
    expect(compilePattern('a*b')('a*b')).toBe(true);
  });
});

describe('visibility', () => {
  it('lets deny win over allow, and treats an empty allow list as all', () => {
    const f = compileFilters({ visible: { allow: ['query_*', 'view_*'], deny: ['query_secret'] } });
    expect(f.toolVisible('query_servers')).toBe(true);
    expect(f.toolVisible('query_secret')).toBe(false);
    expect(f.toolVisible('command_delete')).toBe(false);
    const open = compileFilters({ visible: { allow: [], deny: ['command_*'] } });
    expect(open.toolVisible('query_servers')).toBe(true);
    expect(open.toolVisible('command_delete')).toBe(false);
    expect(compileFilters({}).permissive).toBe(true);
    expect(open.permissive).toBe(false);
  });

  it('hides search/execute only by deny rules', () => {
    const f = compileFilters({ visible: { allow: ['query_*'] } });
    expect(f.toolVisible('search')).toBe(false);
    expect(f.metaToolVisible('search')).toBe(true);
    expect(f.metaToolVisible('execute')).toBe(true);
    const denied = compileFilters({ visible: { deny: ['execute'] } });
    expect(denied.metaToolVisible('execute')).toBe(false);
    expect(denied.metaToolVisible('search')).toBe(true);
  });

  it('normalises legacy kind:id names to kind_id', () => {
    const f = compileFilters({ visible: { deny: ['command:RunPlaybook'] } });
    expect(f.toolVisible('command_RunPlaybook')).toBe(false);
    expect(f.toolVisible('command:RunPlaybook')).toBe(false);
  });

  it('filters resources by URI and prompts by name', () => {
    const f = compileFilters({ resources: { deny: ['agent://config/*'] }, prompts: { allow: ['public_*'] } });
    expect(f.resourceVisible('agent://config/effective')).toBe(false);
    expect(f.resourceVisible('agent://status')).toBe(true);
    expect(f.promptVisible('public_hello')).toBe(true);
    expect(f.promptVisible('admin')).toBe(false);
  });
});

describe('callability', () => {
  const f = compileFilters({
    callable: {
      allow: { command_RunPlaybook: { playbook_id: ['site', 'deploy'] } },
      deny: { 'query_*': { scope: ['all', { every: true }] } },
      denyTools: ['command_drain'],
    },
  });

  it('refuses denied values (compared as JSON)', () => {
    expect(f.callRefusal('query_servers', { scope: 'all' })).toBe('argument `scope` value not allowed');
    expect(f.callRefusal('query_servers', { scope: { every: true } })).toBe(
      'argument `scope` value not allowed',
    );
    expect(f.callRefusal('query_servers', { scope: 'mine' })).toBeUndefined();
    expect(f.callRefusal('query_servers', {})).toBeUndefined();
  });

  it('requires allow-listed arguments to be present and listed', () => {
    expect(f.callRefusal('command_RunPlaybook', {})).toBe('argument `playbook_id` is required by filter');
    expect(f.callRefusal('command_RunPlaybook', { playbook_id: 'other' })).toBe(
      'argument `playbook_id` value not in allowlist',
    );
    expect(f.callRefusal('command_RunPlaybook', { playbook_id: 'site' })).toBeUndefined();
    expect(f.callRefusal('command_Other', {})).toBeUndefined();
  });

  it('refuses tools that are visible but never callable', () => {
    expect(f.callRefusal('command_drain', {})).toBe('tool `command_drain` is not callable by this client');
    expect(f.toolVisible('command_drain')).toBe(true);
  });

  it('compiles once per filters object', () => {
    const filters = { visible: { deny: ['x'] } };
    expect(compileFilters(filters)).toBe(compileFilters(filters));
  });
});

/** `auth.operationScopes`: defaults cover exactly the operator operations, layers merge over them, bad entries are refused. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { filterName } from '../self-mcp/operation-spec.js';
import { buildOperations, type OperationHost } from '../self-mcp/operations.js';
import { ConfigError } from './config-error.js';
import { DEFAULT_OPERATION_SCOPES } from './defaults.js';
import { redactConfig } from './redact-config.js';
import { resolveConfig } from './resolve-config.js';

const dir = mkdtempSync(join(tmpdir(), 'agentd-operation-scopes-'));
const host = {
  agents: () => [{ name: 'example' }],
  defaultAgent: () => 'example',
} as unknown as OperationHost;

function resolveWith(auth: unknown) {
  const path = join(dir, `${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(path, JSON.stringify(auth === undefined ? {} : { auth }));
  return resolveConfig({ configPath: path, env: {}, flags: new Map(), serveDefaults: false, cwd: dir });
}

describe('auth.operationScopes', () => {
  it('defaults to agentd:operator for every operator operation and nothing else', () => {
    const operator = buildOperations(host)
      .filter((o) => o.operator)
      .map(filterName)
      .sort();
    expect(Object.keys(DEFAULT_OPERATION_SCOPES).sort()).toEqual(operator);
    expect(new Set(Object.values(DEFAULT_OPERATION_SCOPES).flat())).toEqual(new Set(['agentd:operator']));
    expect(resolveWith(undefined).config.auth.operationScopes).toEqual(DEFAULT_OPERATION_SCOPES);
  });

  it('merges a file over the defaults ([] requires nothing) and shows in the redacted config', () => {
    const { config } = resolveWith({
      operationScopes: { 'command_subagent.spawn': ['runs:write'], command_pause: [] },
    });
    expect(config.auth.operationScopes).toEqual({
      ...DEFAULT_OPERATION_SCOPES,
      'command_subagent.spawn': ['runs:write'],
      command_pause: [],
    });
    expect((redactConfig(config).auth as { operationScopes: unknown }).operationScopes).toEqual(
      config.auth.operationScopes,
    );
  });

  it('refuses names that are not operations and scopes with spaces', () => {
    let issues = '';
    for (const bad of [{ drain: ['x'] }, { command_drain: ['a b'] }, { command_drain: 'admin' }]) {
      try {
        resolveWith({ operationScopes: bad });
      } catch (error) {
        if (!(error instanceof ConfigError)) throw error;
        issues += error.issues.map((i) => `${i.path} ${i.message}\n`).join('');
        continue;
      }
      throw new Error(`accepted ${JSON.stringify(bad)}`);
    }
    expect(issues).toMatch(/\/auth\/operationScopes/);
    expect(issues).toMatch(/\/auth\/operationScopes\/command_drain\/0/);
  });
});

/** The `workspace` block's schema, compiled as the config validator compiles it (ajv, strict), and its defaults. */
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { WORKSPACE_DEFAULTS, WORKSPACE_SCHEMA, workspaceConfig } from './workspace-config.js';

const validate = new Ajv({ allErrors: true, strict: true, allowUnionTypes: true }).compile(WORKSPACE_SCHEMA);

describe('WORKSPACE_SCHEMA', () => {
  it('accepts every mode and keep policy', () => {
    expect(validate(WORKSPACE_DEFAULTS)).toBe(true);
    for (const mode of ['worktree', 'copy', 'in-place']) {
      for (const keep of ['changed', 'always', 'never'])
        expect(validate({ mode, keep, repo: 'app', maxLive: 4 })).toBe(true);
    }
  });

  it('refuses unknown modes, keys and bounds', () => {
    for (const bad of [
      { mode: 'clone' },
      { keep: 'sometimes' },
      { repo: '' },
      { maxLive: 0 },
      { maxLive: 2.5 },
      { path: '.' },
    ]) {
      expect(validate(bad), JSON.stringify(bad)).toBe(false);
    }
  });
});

describe('workspaceConfig', () => {
  it('fills the defaults: in-place, repo ".", keep changed', () => {
    expect(workspaceConfig(undefined)).toEqual({ mode: 'in-place', repo: '.', keep: 'changed', maxLive: 16 });
    expect(workspaceConfig({ mode: 'worktree' })).toMatchObject({
      mode: 'worktree',
      repo: '.',
      keep: 'changed',
    });
  });
});

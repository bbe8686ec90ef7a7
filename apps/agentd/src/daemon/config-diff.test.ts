import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../config/defaults.js';
import { redactConfig } from '../config/redact-config.js';
import { diffConfig } from './config-diff.js';

describe('diffConfig', () => {
  it('applies reloadable keys and keeps restart-only ones at their running values', () => {
    const running = defaultConfig({ serveDefaults: true, env: {} });
    const next = {
      ...running,
      logLevel: 'debug' as const,
      serve: ['unix:/elsewhere.sock'],
      exposure: 'classic' as const,
    };
    const diff = diffConfig(running, next);
    expect(diff.changed).toEqual(['logLevel']);
    expect(diff.restartRequired.sort()).toEqual(['exposure', 'serve']);
    expect(diff.effective).toMatchObject({ logLevel: 'debug', serve: running.serve, exposure: 'codemode' });
  });
});

describe('redactConfig', () => {
  it('hides token values and agent env values, keeps their names', () => {
    const config = defaultConfig({ serveDefaults: false, env: {} });
    config.auth.bearerTokens = [{ name: 'ops', token: 'x'.repeat(32) }];
    config.agents.secretive = { mode: 'plain', command: 'cat', env: { API_KEY: 'hunter2' } };
    const text = JSON.stringify(redactConfig(config));
    expect(text).not.toContain('hunter2');
    expect(text).not.toContain('x'.repeat(32));
    expect(text).toContain('"API_KEY":"[redacted]"');
    expect(text).toContain('"name":"ops"');
    expect(config.agents.secretive.env?.API_KEY).toBe('hunter2');
  });
});

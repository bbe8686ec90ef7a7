/** The daemon's run store at start, from the resolved config: on by default, off when asked, locked. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { resolveConfig } from '../config/resolve-config.js';
import type { RunStore } from './history-types.js';
import { openHistory } from './open-history.js';
import { captureLogger } from './test-support/capture-logger.js';

const dirs: string[] = [];
const stores: RunStore[] = [];
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function configWith(env: Record<string, string>, flags: [string, string][] = []) {
  const state = await mkdtemp(join(tmpdir(), 'agentd-open-history-'));
  dirs.push(state);
  const inputs = {
    env: { XDG_STATE_HOME: state, XDG_RUNTIME_DIR: state, ...env },
    flags: new Map(flags.map(([flag, value]) => [flag, [value]])),
    serveDefaults: false,
    cwd: state,
  };
  return { state, inputs, config: resolveConfig(inputs).config };
}

describe('openHistory', () => {
  it('opens the store under $XDG_STATE_HOME/agentd by default, with the configured bounds', async () => {
    const { state, inputs, config } = await configWith({ AGENTD_HISTORY_MAX_RUNS: '7' });
    expect(config.history).toMatchObject({ enabled: true, maxRuns: 7, maxAgeDays: 30 });
    const store = await openHistory(config, { env: inputs.env, logger: captureLogger(), stdio: false });
    if (store !== undefined) stores.push(store);
    expect(store?.dir).toBe(join(state, 'agentd'));
  });

  it('opens nothing when history is off (AGENTD_HISTORY=false), nor a state directory for a fleet', async () => {
    const off = await configWith({ AGENTD_HISTORY: 'false' });
    expect(
      await openHistory(off.config, { env: off.inputs.env, logger: captureLogger(), stdio: false }),
    ).toBe(undefined);
    const fleet = await configWith({ AGENTD_REDIS_URL: 'redis://127.0.0.1:1' });
    expect(
      await openHistory(fleet.config, { env: fleet.inputs.env, logger: captureLogger(), stdio: false }),
    ).toBe(undefined);
  });

  it('--state-dir moves it; a held directory refuses a daemon but lets agentd stdio run without history', async () => {
    const { state, inputs } = await configWith({});
    const moved = join(state, 'elsewhere');
    const config = resolveConfig({ ...inputs, flags: new Map([['--state-dir', [moved]]]) }).config;
    const first = await openHistory(config, { env: inputs.env, logger: captureLogger(), stdio: false });
    if (first !== undefined) stores.push(first);
    expect(first?.dir).toBe(moved);
    await expect(
      openHistory(config, { env: inputs.env, logger: captureLogger(), stdio: false }),
    ).rejects.toMatchObject({ code: 'store_locked', message: expect.stringContaining(String(process.pid)) });
    const logger = captureLogger();
    expect(await openHistory(config, { env: inputs.env, logger, stdio: true })).toBe(undefined);
    expect(logger.lines.some((l) => l.level === 'warn' && l.msg.includes('history is not being kept'))).toBe(
      true,
    );
  });

  it('refuses a relative stateDir', async () => {
    await expect(configWith({ AGENTD_STATE_DIR: 'relative/dir' })).rejects.toThrow(
      /AGENTD_STATE_DIR.*stateDir: must match pattern/,
    );
  });
});

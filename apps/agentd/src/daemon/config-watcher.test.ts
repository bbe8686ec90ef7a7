import { mkdirSync, mkdtempSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { ConfigWatcher } from './config-watcher.js';

describe('ConfigWatcher', () => {
  it('reports a Kubernetes-style symlink swap, and not a rewrite with the same bytes', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentd-watch-'));
    mkdirSync(join(dir, 'v1'));
    mkdirSync(join(dir, 'v2'));
    writeFileSync(join(dir, 'v1', 'agentd.json'), '{"logLevel":"info"}');
    writeFileSync(join(dir, 'v2', 'agentd.json'), '{"logLevel":"debug"}');
    symlinkSync('v1', join(dir, '..data'));
    symlinkSync(join('..data', 'agentd.json'), join(dir, 'agentd.json'));
    let changes = 0;
    const watcher = new ConfigWatcher(join(dir, 'agentd.json'), () => changes++, 20);
    watcher.start();
    try {
      writeFileSync(join(dir, 'agentd.json'), '{"logLevel":"info"}');
      // sleep-is-the-point: nothing may be reported within ten debounce periods.
      await new Promise((r) => setTimeout(r, 200));
      expect(changes).toBe(0);
      symlinkSync('v2', join(dir, '..data_tmp'));
      renameSync(join(dir, '..data_tmp'), join(dir, '..data'));
      await vi.waitFor(() => expect(changes, 'the symlink swap to be reported').toBeGreaterThan(0), {
        timeout: 10_000,
        interval: 20,
      });
      expect(changes).toBe(1);
    } finally {
      watcher.stop();
    }
  });
});

/** The CLI writing into a pipe whose reader has gone (`agentd config schema | head -c 1`). */
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { CLI, cleanEnv } from './support/agentd-process.js';

describe('agentd CLI on a closed pipe', () => {
  it('exits quietly instead of crashing with EPIPE', async () => {
    const proc = spawn(process.execPath, [CLI, 'config', 'schema'], {
      env: cleanEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    proc.stdout.destroy(); // the reader is gone before the first write
    let stderr = '';
    proc.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const code = await new Promise<number | null>((resolve) => proc.on('close', resolve));
    expect(stderr).toBe('');
    expect(code).toBe(0);
  });
});

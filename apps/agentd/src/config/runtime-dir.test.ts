import { isNamedPipePath } from '@agentd/transport-unix';
import { describe, expect, it } from 'vitest';
import { defaultSocketPath } from './runtime-dir.js';

describe('defaultSocketPath', () => {
  it('is a socket file in the runtime dir on unix-like systems', () => {
    expect(defaultSocketPath({ XDG_RUNTIME_DIR: '/run/user/1000' }, 'linux')).toBe(
      '/run/user/1000/agentd/agentd.sock',
    );
    expect(defaultSocketPath({ XDG_RUNTIME_DIR: '/run/user/501' }, 'darwin')).toBe(
      '/run/user/501/agentd/agentd.sock',
    );
  });

  it('is a per-user named pipe on Windows, where Node cannot listen on socket files', () => {
    const path = defaultSocketPath({ USERNAME: 'Ada Lovelace' }, 'win32');
    expect(path).toBe('\\\\.\\pipe\\agentd-Ada_Lovelace');
    expect(isNamedPipePath(path)).toBe(true);
  });
});

import { describe, expect, it } from 'vitest';
import { isNamedPipePath } from './named-pipe.js';

describe('isNamedPipePath', () => {
  it('recognises both Windows pipe namespaces, in any case', () => {
    expect(isNamedPipePath('\\\\.\\pipe\\agentd-alice')).toBe(true);
    expect(isNamedPipePath('\\\\?\\pipe\\agentd')).toBe(true);
    expect(isNamedPipePath('\\\\.\\PIPE\\agentd')).toBe(true);
  });

  it('leaves socket files and UNC shares alone', () => {
    expect(isNamedPipePath('/run/user/1000/agentd/agentd.sock')).toBe(false);
    expect(isNamedPipePath('C:\\agentd\\agentd.sock')).toBe(false);
    expect(isNamedPipePath('\\\\server\\pipe\\agentd')).toBe(false);
    expect(isNamedPipePath('\\\\.\\pipe\\')).toBe(false);
  });
});

import { describe, expect, it } from 'vitest';
import { runtimeRequire } from './runtime-require.js';

describe('runtimeRequire', () => {
  it('requires built-ins and packages resolved from the given module', () => {
    const load = runtimeRequire(import.meta.url);
    if (load === undefined) throw new Error('Node has a synchronous require');
    expect((load('node:path') as typeof import('node:path')).join('a', 'b')).toBe('a/b');
    // vitest is installed above this package: resolution starts at `from`, not at the caller.
    expect(load('vitest/package.json')).toMatchObject({ name: 'vitest' });
  });

  it('throws the runtime’s not-found error for a package that is not installed', () => {
    const load = runtimeRequire(import.meta.url);
    expect(() => load?.('@agentd/no-such-package')).toThrow(
      expect.objectContaining({ code: 'MODULE_NOT_FOUND' }),
    );
  });

  it('is undefined where no require can be made (workerd: no module URL to resolve from)', () => {
    expect(runtimeRequire(undefined as unknown as string)).toBeUndefined();
  });

  it('is undefined where the runtime has no getBuiltinModule (workerd, browsers)', () => {
    const saved = process.getBuiltinModule;
    try {
      Object.defineProperty(process, 'getBuiltinModule', { value: undefined, configurable: true });
      expect(runtimeRequire(import.meta.url)).toBeUndefined();
    } finally {
      Object.defineProperty(process, 'getBuiltinModule', {
        value: saved,
        configurable: true,
        writable: true,
      });
    }
  });
});

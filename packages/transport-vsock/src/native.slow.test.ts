/** The addon's own guard rails: bad arguments and closed or foreign handles throw, never crash. */
import { describe, expect, it } from 'vitest';
import { type NativeHandle, nativeAddon, vsockUnavailableReason } from './native.js';
import { tempSocketPath } from './test-support/unix-stand-in.js';

const addon = nativeAddon();

function thrown(call: () => unknown): NodeJS.ErrnoException {
  try {
    call();
  } catch (error) {
    return error as NodeJS.ErrnoException;
  }
  throw new Error('expected a throw');
}

describe('native addon', () => {
  it('is loaded on this machine', () => {
    expect(vsockUnavailableReason()).toBeUndefined();
  });

  it('rejects malformed addresses with TypeErrors', () => {
    const bad: unknown[] = [
      undefined,
      5,
      {},
      { family: 'inet' },
      { family: 'unix' },
      { family: 'unix', path: '' },
      { family: 'vsock', cid: 'x', port: 1 },
      { family: 'vsock', port: 1 },
    ];
    for (const address of bad) {
      const error = thrown(() => addon.listen(address as never, 4));
      expect(error).toBeInstanceOf(TypeError);
      expect(error.code).toBe('ERR_INVALID_ARG_TYPE');
      expect(thrown(() => addon.connect(address as never))).toBeInstanceOf(TypeError);
    }
  });

  it('reports a unix path longer than sun_path as ENAMETOOLONG', () => {
    const error = thrown(() => addon.listen({ family: 'unix', path: `/tmp/${'x'.repeat(200)}` }, 4));
    expect(error.code).toBe('ENAMETOOLONG');
  });

  it('refuses calls on a closed handle with EBADF, and close() twice is fine', () => {
    const path = tempSocketPath();
    const handle: NativeHandle = addon.listen({ family: 'unix', path: path.path }, 4);
    expect(handle.fd).toBeGreaterThan(2);
    handle.close();
    handle.close();
    expect(handle.fd).toBe(-1);
    for (const call of [
      () => handle.accept(),
      () => handle.read(),
      () => handle.write(Buffer.from('x')),
      () => handle.poll(1, () => {}),
    ]) {
      const error = thrown(call);
      expect(error.code).toBe('EBADF');
      expect(error.message).toMatch(/^(closed socket|poll) EBADF/);
    }
    path.cleanup();
  });

  it('refuses a write of a non-Buffer and methods called on foreign objects', () => {
    const path = tempSocketPath();
    const handle = addon.listen({ family: 'unix', path: path.path }, 4);
    expect(thrown(() => handle.write('text' as never))).toBeInstanceOf(TypeError);
    expect(thrown(() => handle.poll(1))).toBeInstanceOf(TypeError); // no callback yet
    const Handle = Object.getPrototypeOf(handle).constructor as new () => NativeHandle;
    expect(thrown(() => new Handle().read()).message).toBe('not a vsock handle');
    // V8's own receiver check (methods of a Node-API class) stops it before the addon runs.
    expect(thrown(() => handle.read.call({})).message).toMatch(/Illegal invocation|not a vsock handle/);
    handle.close();
    path.cleanup();
  });
});

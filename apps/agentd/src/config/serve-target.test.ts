import { describe, expect, it } from 'vitest';
import { parseServeTarget, ServeTargetError } from './serve-target.js';

describe('parseServeTarget', () => {
  it('reads vsock:PORT as any CID and vsock:CID:PORT with its CID', () => {
    expect(parseServeTarget('vsock:5000')).toEqual({
      kind: 'vsock',
      raw: 'vsock:5000',
      cid: undefined,
      port: 5000,
    });
    expect(parseServeTarget('vsock:3:5000')).toEqual({
      kind: 'vsock',
      raw: 'vsock:3:5000',
      cid: 3,
      port: 5000,
    });
  });

  it.each(['vsock:0', 'vsock:', 'vsock:x', 'vsock:1:2:3', 'vsock:-1', 'vsock:4294967296'])(
    'refuses %s with the reason',
    (raw) => {
      expect(() => parseServeTarget(raw)).toThrow(ServeTargetError);
      expect(() => parseServeTarget(raw)).toThrow(/invalid vsock address/);
    },
  );

  it('resolves a relative unix path against the base directory', () => {
    expect(parseServeTarget('unix:run/a.sock', '/srv')).toEqual({
      kind: 'unix',
      raw: 'unix:run/a.sock',
      path: '/srv/run/a.sock',
    });
  });

  it('requires an explicit port on http targets and defaults the path to /mcp', () => {
    expect(() => parseServeTarget('http://127.0.0.1')).toThrow(/explicit port/);
    expect(parseServeTarget('http://127.0.0.1:0')).toMatchObject({
      kind: 'http',
      port: 0,
      path: '/mcp',
      loopback: true,
    });
    expect(parseServeTarget('https://0.0.0.0:8443/x')).toMatchObject({
      kind: 'https',
      path: '/x',
      loopback: false,
    });
  });
});

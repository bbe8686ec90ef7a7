/** The `vsock:PORT` / `vsock:CID:PORT` grammar shared with agentd's config. */
import { LocalError } from '@agentd/rpc-frame';
import { describe, expect, it } from 'vitest';
import { VMADDR_CID_ANY } from './constants.js';
import { parseVsockAddress } from './parse-vsock-address.js';

describe('parseVsockAddress', () => {
  it('reads vsock:PORT as any local CID', () => {
    expect(parseVsockAddress('vsock:5005')).toEqual({ cid: VMADDR_CID_ANY, port: 5005 });
  });

  it('reads vsock:CID:PORT', () => {
    expect(parseVsockAddress('vsock:2:5000')).toEqual({ cid: 2, port: 5000 });
    expect(parseVsockAddress('vsock:3:8080')).toEqual({ cid: 3, port: 8080 });
    expect(parseVsockAddress('vsock:4294967295:1')).toEqual({ cid: VMADDR_CID_ANY, port: 1 });
    expect(parseVsockAddress('vsock:0:4294967294')).toEqual({ cid: 0, port: 4294967294 });
  });

  it.each([
    ['vsock:0', /port 0 is not a valid/],
    ['vsock:2:0', /port 0 is not a valid/],
    ['vsock:4294967295', /wildcard port/],
    ['vsock:4294967296', /port 4294967296 is out of range/],
    ['vsock:2:99999999999', /port must be a decimal number/],
    ['vsock:abc', /port must be a decimal number, got "abc"/],
    ['vsock:', /port must be a decimal number, got ""/],
    ['vsock:-1', /port must be a decimal number/],
    ['vsock:+5', /port must be a decimal number/],
    ['vsock:0x10', /port must be a decimal number/],
    ['vsock: 5005', /port must be a decimal number/],
    ['vsock:5005 ', /port must be a decimal number/],
    ['vsock:1.5', /port must be a decimal number/],
    ['vsock:x:5', /CID must be a decimal number, got "x"/],
    ['vsock:4294967296:5', /CID 4294967296 is out of range/],
    ['vsock:1:2:3', /expected "vsock:PORT" or "vsock:CID:PORT"/],
    ['unix:/tmp/x', /expected "vsock:PORT" or "vsock:CID:PORT"/],
    ['VSOCK:5005', /expected/],
    ['', /expected/],
  ])('refuses %j with a clear reason', (text, reason) => {
    let caught: unknown;
    try {
      parseVsockAddress(text);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(LocalError);
    expect((caught as LocalError).code).toBe('invalid_vsock_address');
    expect((caught as LocalError).message).toContain(JSON.stringify(text));
    expect((caught as LocalError).message).toMatch(reason);
  });

  it('refuses a non-string', () => {
    expect(() => parseVsockAddress(5005 as unknown as string)).toThrow(/expected a string/);
  });
});

/** Tests for the DNS-rebinding guard. */
import { describe, expect, it } from 'vitest';
import { hostName, hostPolicy, isAllowedHost, isAllowedOrigin } from './host-origin.js';

describe('Host and Origin guard', () => {
  const loopbackOnly = hostPolicy();

  it('accepts loopback hosts with or without a port', () => {
    for (const host of ['localhost', 'localhost:3000', '127.0.0.1:8080', '[::1]:9', '[::1]', 'LOCALHOST:1']) {
      expect(isAllowedHost(host, loopbackOnly)).toBe(true);
    }
  });

  it('refuses other hosts and a missing Host unless allow-listed', () => {
    expect(isAllowedHost('evil.example.com', loopbackOnly)).toBe(false);
    expect(isAllowedHost('localhost.evil.com', loopbackOnly)).toBe(false);
    expect(isAllowedHost(undefined, loopbackOnly)).toBe(false);
    const policy = hostPolicy(['mcp.example.com'], []);
    expect(isAllowedHost('mcp.example.com:443', policy)).toBe(true);
    expect(isAllowedHost('other.example.com', policy)).toBe(false);
  });

  it('accepts an absent or loopback Origin, refuses others and "null"', () => {
    expect(isAllowedOrigin(undefined, loopbackOnly)).toBe(true);
    expect(isAllowedOrigin('http://localhost:5173', loopbackOnly)).toBe(true);
    expect(isAllowedOrigin('https://127.0.0.1', loopbackOnly)).toBe(true);
    expect(isAllowedOrigin('http://evil.example.com', loopbackOnly)).toBe(false);
    expect(isAllowedOrigin('null', loopbackOnly)).toBe(false);
    expect(isAllowedOrigin('file://localhost', loopbackOnly)).toBe(false);
    expect(isAllowedOrigin('https://app.example.com/', hostPolicy([], ['https://app.example.com']))).toBe(
      true,
    );
  });

  it('reads the host name out of a Host header', () => {
    expect(hostName('[::1]:80')).toBe('[::1]');
    expect(hostName('Example.COM:8443')).toBe('example.com');
  });
});

/** Tests for the DNS-rebinding guard. */
import { describe, expect, it } from 'vitest';
import { hostPolicy, isAllowedHost, isAllowedOrigin, parseHost } from './host-origin.js';

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

  it('reads the host name and port out of a Host header', () => {
    expect(parseHost('[::1]:80')).toEqual({ name: '[::1]', port: '80' });
    expect(parseHost('Example.COM:8443')).toEqual({ name: 'example.com', port: '8443' });
    expect(parseHost('localhost')).toEqual({ name: 'localhost', port: undefined });
    expect(parseHost(' 127.0.0.1:65535 ')).toEqual({ name: '127.0.0.1', port: '65535' });
  });

  // A Host that is not exactly `host[:port]`: each would let a check of one name admit another.
  const ADVERSARIAL_HOSTS = [
    '127.0.0.1:x@attacker.example',
    'localhost@attacker.example',
    'localhost:80@attacker.example',
    'user:pass@localhost',
    '@localhost',
    'localhost:x',
    'localhost:',
    'localhost:-1',
    'localhost:65536',
    'localhost:99999',
    'localhost:123456',
    'localhost:080',
    'localhost:+80',
    'localhost:8 0',
    'localhost:80:80',
    ':80',
    '',
    ' ',
    '[]',
    '[::1',
    '::1',
    '[::1]x',
    '[::1]:x',
    '[::1]:99999',
    'localhost/evil',
    'localhost/../x',
    'localhost?x',
    'localhost#x',
    'localhost\\evil.example',
    'local host',
    'localhost\tevil',
    'localhost\r\nX: y',
    'localhost%2f',
    'l%6fcalhost',
    '127.1',
    '0x7f.0.0.1',
    '2130706433',
    '127.0.0.01',
    'localhost.evil.example:x@127.0.0.1',
    'ｌocalhost',
    'xn--',
    '*',
  ];

  it('refuses a Host that is not a plain URL authority, even with every host allowed', () => {
    const anyHost = hostPolicy(['*'], []);
    for (const host of ADVERSARIAL_HOSTS) {
      expect(parseHost(host), host).toBeUndefined();
      expect(isAllowedHost(host, loopbackOnly), host).toBe(false);
      expect(isAllowedHost(host, anyHost), host).toBe(false);
    }
  });

  it('parses exactly what a URL parser reads back as the same host and port', () => {
    for (const host of [...ADVERSARIAL_HOSTS, 'localhost', '127.0.0.1:8080', '[::1]:9', 'a.b-c.example:1']) {
      const parsed = parseHost(host);
      if (parsed === undefined) continue;
      const url = new URL(`http://${host.trim()}`);
      expect(url.hostname, host).toBe(parsed.name);
      expect(url.username + url.password + url.search + url.hash, host).toBe('');
    }
  });

  it('refuses an Origin with userinfo, a path or a bad port, and admits loopback origins on any port', () => {
    for (const origin of [
      'http://127.0.0.1:x@attacker.example',
      'http://localhost@attacker.example',
      'http://user@localhost',
      'http://localhost:65536',
      'http://localhost/app',
      'http://localhost:3000/x',
      'http://127.1',
      'ws://localhost',
      'http://',
    ]) {
      expect(isAllowedOrigin(origin, loopbackOnly), origin).toBe(false);
    }
    for (const origin of [
      'http://localhost:1',
      'http://127.0.0.1:65535',
      'https://[::1]:8443',
      'http://app.localhost',
    ]) {
      expect(isAllowedOrigin(origin, loopbackOnly), origin).toBe(true);
    }
  });

  it('matches an allow-listed host with or without its port', () => {
    const policy = hostPolicy(['mcp.example.com', 'api.example.com:8443'], []);
    expect(isAllowedHost('mcp.example.com', policy)).toBe(true);
    expect(isAllowedHost('mcp.example.com:1', policy)).toBe(true);
    expect(isAllowedHost('api.example.com:8443', policy)).toBe(true);
    expect(isAllowedHost('api.example.com:8444', policy)).toBe(false);
    expect(isAllowedHost('api.example.com', policy)).toBe(false);
    expect(isAllowedHost('mcp.example.com:x@evil.example', policy)).toBe(false);
  });
});

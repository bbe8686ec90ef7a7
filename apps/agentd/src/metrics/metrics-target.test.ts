import { LocalError } from '@agentd/rpc-frame';
import { describe, expect, it } from 'vitest';
import { parseMetricsTarget } from './metrics-target.js';

describe('parseMetricsTarget', () => {
  it('reads host, port and path, and whether the host is loopback', () => {
    expect(parseMetricsTarget('http://127.0.0.1:0')).toMatchObject({
      host: '127.0.0.1',
      port: 0,
      path: '/metrics',
      loopback: true,
    });
    expect(parseMetricsTarget('http://[::1]:9464/prom/')).toMatchObject({ host: '::1', path: '/prom' });
    expect(parseMetricsTarget('http://10.0.0.5:9464').loopback).toBe(false);
  });

  it.each([
    ['not a url', 'not a valid URL'],
    ['https://127.0.0.1:9464', 'over http:// only'],
    ['http://u:p@127.0.0.1:9464', 'credentials'],
    ['http://127.0.0.1/metrics', 'explicit port'],
  ])('refuses %s with the invalid_config code', (raw, text) => {
    let thrown: unknown;
    try {
      parseMetricsTarget(raw);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(LocalError);
    expect(thrown).toMatchObject({ code: 'invalid_config', message: expect.stringContaining(text) });
  });
});

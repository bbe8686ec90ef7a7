/** Tests for the loopback bind-address check. */
import { expect, it } from 'vitest';
import { isLoopbackAddress } from './loopback-address.js';

it('knows loopback bind addresses', () => {
  expect(isLoopbackAddress('127.0.0.1')).toBe(true);
  expect(isLoopbackAddress('::1')).toBe(true);
  expect(isLoopbackAddress('localhost')).toBe(true);
  expect(isLoopbackAddress('0.0.0.0')).toBe(false);
  expect(isLoopbackAddress('::')).toBe(false);
  expect(isLoopbackAddress('10.0.0.1')).toBe(false);
});

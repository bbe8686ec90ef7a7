import { describe, expect, it } from 'vitest';
import { frameTooLarge } from './local-errors.js';
import { LocalError } from './wire-error.js';

describe('frameTooLarge', () => {
  it('says what was too large and the limit, with a code a client can test', () => {
    const error = frameTooLarge(1024);
    expect(error).toBeInstanceOf(LocalError);
    expect(error.code).toBe('frame_too_large');
    expect(error.message).toBe('response too large (limit 1024 bytes)');
    expect(frameTooLarge(8, 'request').message).toBe('request too large (limit 8 bytes)');
  });
});

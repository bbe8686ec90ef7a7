import { describe, expect, it } from 'vitest';
import { acceptsMediaType } from './accept.js';

describe('acceptsMediaType', () => {
  it('matches whole media types only, not prefixes', () => {
    expect(acceptsMediaType('application/jsonx', 'application/json')).toBe(false);
    expect(acceptsMediaType('text/event-streaming', 'text/event-stream')).toBe(false);
    expect(acceptsMediaType('application/json', 'application/json')).toBe(true);
  });

  it('is case-insensitive and tolerates whitespace, parameters and q-values', () => {
    expect(acceptsMediaType('Application/JSON; charset=utf-8', 'application/json')).toBe(true);
    expect(acceptsMediaType(' text/html ,TEXT/Event-Stream;q=0.5', 'text/event-stream')).toBe(true);
    expect(acceptsMediaType('application/json;q=0', 'application/json')).toBe(false);
  });

  it('accepts */* and major/* wildcards covering the type', () => {
    expect(acceptsMediaType('*/*', 'text/event-stream')).toBe(true);
    expect(acceptsMediaType('application/*', 'application/json')).toBe(true);
    expect(acceptsMediaType('text/*', 'text/event-stream')).toBe(true);
    expect(acceptsMediaType('text/*', 'application/json')).toBe(false);
    expect(acceptsMediaType(undefined, 'application/json')).toBe(false);
  });

  it('answers a repeated header the same, for each type apart, and a changed header anew', () => {
    const json = 'application/json';
    const sse = 'text/event-stream';
    for (let round = 0; round < 3; round++) {
      expect(acceptsMediaType('application/json', json)).toBe(true);
      expect(acceptsMediaType('application/json', sse)).toBe(false);
      expect(acceptsMediaType(['application/json', 'text/event-stream'], sse)).toBe(true);
      expect(acceptsMediaType('text/event-stream', json)).toBe(false);
    }
    for (let i = 0; i < 20; i++) expect(acceptsMediaType('text/plain', `x/type-${i}`)).toBe(false);
    expect(acceptsMediaType('x/*', 'x/type-19')).toBe(true);
  });
});

/** Tests for brandErrorClass: instanceof across installed copies of a class, by its brand. */
import { describe, expect, it } from 'vitest';
import { brandErrorClass } from './error-brand.js';

type ErrorClass = new (message?: string) => Error;

/** Two copies of the "same" class, as two installed versions of one package would have. */
function copies(): [ErrorClass, ErrorClass] {
  class First extends Error {}
  class Second extends Error {}
  brandErrorClass(First, '@agentd/test/Copied');
  brandErrorClass(Second, '@agentd/test/Copied');
  return [First, Second];
}

describe('brandErrorClass', () => {
  it('makes instanceof true for an instance of another copy of the class', () => {
    const [First, Second] = copies();
    expect(new Second('x') instanceof First).toBe(true);
    expect(new First('x') instanceof Second).toBe(true);
    expect(new First('x') instanceof First).toBe(true);
  });

  it('refuses errors without the brand, and values that are not errors', () => {
    const [First] = copies();
    expect(new Error('plain') instanceof First).toBe(false);
    const lookalike = { [Symbol.for('@agentd/test/Copied')]: true };
    expect(lookalike instanceof First).toBe(false);
    expect((undefined as unknown as object) instanceof First).toBe(false);
  });

  it('keeps an unbranded subclass on the prototype check, and brands a branded one on its own', () => {
    const [First, Second] = copies();
    class Plain extends First {}
    expect(new Plain('x') instanceof First).toBe(true);
    expect(new Second('x') instanceof Plain).toBe(false);
    class Named extends First {}
    brandErrorClass(Named, '@agentd/test/Named');
    class OtherNamed extends Second {}
    brandErrorClass(OtherNamed, '@agentd/test/Named');
    expect(new OtherNamed('x') instanceof Named).toBe(true);
    expect(new Second('x') instanceof Named).toBe(false);
    expect(new OtherNamed('x') instanceof First).toBe(true);
  });
});

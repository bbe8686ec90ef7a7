/** Dispatch's error classes are branded: an error thrown by another installed copy of the package still matches. */
import { brandErrorClass } from '@agentd/rpc-frame';
import { describe, expect, it } from 'vitest';
import { MissingClientCapabilityError } from './client-capability.js';
import { InputRequired } from './input-required.js';

describe("dispatch's error classes", () => {
  it('match the errors of another copy of their class, and nothing else', () => {
    // What another installed copy of this package defines: a class of its own with the same brand.
    class CopiedInputRequired extends Error {}
    brandErrorClass(CopiedInputRequired, '@agentd/dispatch/InputRequired');
    class CopiedMissing extends Error {}
    brandErrorClass(CopiedMissing, '@agentd/dispatch/MissingClientCapabilityError');
    expect(new CopiedInputRequired('x') instanceof InputRequired).toBe(true);
    expect(new CopiedMissing('x') instanceof MissingClientCapabilityError).toBe(true);
    expect(new CopiedMissing('x') instanceof InputRequired).toBe(false);
    expect(new Error('plain') instanceof InputRequired).toBe(false);
    expect(new InputRequired({}) instanceof InputRequired).toBe(true);
    expect(new MissingClientCapabilityError({ sampling: {} }) instanceof CopiedMissing).toBe(true);
  });
});

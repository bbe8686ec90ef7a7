import { OPERATION_KINDS as CODE_MODE_KINDS } from '@agentd/codemode/tools';
import { describe, expect, it } from 'vitest';
import { OPERATION_KINDS } from './definitions.js';

describe('operation kinds', () => {
  it('are Code Mode’s, in the same order (dispatch keeps its own copy so codemode stays optional)', () => {
    expect([...OPERATION_KINDS]).toEqual([...CODE_MODE_KINDS]);
  });
});

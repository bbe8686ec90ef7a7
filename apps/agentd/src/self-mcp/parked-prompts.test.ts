/** Parked prompts: one stable key per request, and prompts no run waits on are swept out. */
import { describe, expect, it } from 'vitest';
import type { PermissionRequest } from '../supervisor/run-event.js';
import { ParkedPrompts } from './parked-prompts.js';

const request = (requestId: string): PermissionRequest => ({
  requestId,
  toolCall: { id: `call_${requestId}`, title: 'Write a.ts', kind: 'edit', status: 'pending' },
  options: [{ optionId: 'allow', name: 'Allow', kind: 'allow_once' }],
});

describe('ParkedPrompts', () => {
  it('gives a request one unguessable key and finds it by that key only', () => {
    const prompts = new ParkedPrompts(() => true);
    const key = prompts.keyFor('sa_1', 'run_1', request('r1'));
    expect(key).toMatch(/^permission_r1_[\w-]{16}$/);
    expect(prompts.keyFor('sa_1', 'run_1', request('r1'))).toBe(key);
    expect(prompts.keyFor('sa_2', 'run_2', request('r1'))).not.toBe(key);
    expect(prompts.find([key, 'permission_r1_guess']).map((p) => p.handle)).toEqual(['sa_1']);
    prompts.forget(key);
    expect(prompts.find([key])).toEqual([]);
  });

  it('forgets the prompts of runs that ended or were decided, keeping the ones still pending', () => {
    const pending = new Set<string>();
    const prompts = new ParkedPrompts((handle, requestId) => pending.has(`${handle}/${requestId}`));
    const kept: string[] = [];
    for (let i = 0; i < 200; i += 1) {
      const handle = `sa_${i}`;
      const key = prompts.keyFor(handle, `run_${i}`, request('r'));
      // Every tenth run still waits; the others ended without their caller retrying.
      if (i % 10 === 0) {
        pending.add(`${handle}/r`);
        kept.push(key);
      }
    }
    expect(prompts.size).toBeLessThan(100);
    expect(prompts.find(kept)).toHaveLength(kept.length);
  });
});

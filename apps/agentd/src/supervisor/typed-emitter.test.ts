import { describe, expect, it } from 'vitest';
import { TypedEmitter } from './typed-emitter.js';

type Listeners = { ping: (n: number) => void; other: () => void };

describe('the typed emitter', () => {
  it('calls each listener once, in the order added, and reports a throwing one without stopping', () => {
    const failures: unknown[] = [];
    const emitter = new TypedEmitter<Listeners>((event, error) => failures.push([event, error]));
    const seen: string[] = [];
    const a = (n: number): void => void seen.push(`a${n}`);
    const boom = new Error('boom');
    emitter.on('ping', a);
    emitter.on('ping', a);
    emitter.on('ping', () => {
      throw boom;
    });
    emitter.on('ping', (n) => void seen.push(`b${n}`));
    emitter.emit('ping', 1);
    emitter.emit('other');
    expect(seen).toEqual(['a1', 'b1']);
    expect(failures).toEqual([['ping', boom]]);
  });

  it('changes made during an emit take effect from the next emit', () => {
    const emitter = new TypedEmitter<Listeners>(() => {});
    const seen: string[] = [];
    const late = (n: number): void => void seen.push(`late${n}`);
    const second = (n: number): void => void seen.push(`second${n}`);
    emitter.on('ping', (n) => {
      seen.push(`first${n}`);
      emitter.off('ping', second);
      emitter.on('ping', late);
    });
    emitter.on('ping', second);
    emitter.emit('ping', 1);
    emitter.emit('ping', 2);
    expect(seen).toEqual(['first1', 'second1', 'first2', 'late2']);
    emitter.off('ping', late);
    emitter.off('ping', late);
    emitter.emit('ping', 3);
    expect(seen.slice(4)).toEqual(['first3']);
  });
});

import { describe, expect, it } from 'vitest';
import { EVENT_TEXT_CHARS, EventRing } from './event-ring.js';

describe('a run’s recent events', () => {
  it('keeps the newest events with seq and at, within the count and byte bounds', () => {
    const ring = new EventRing(3, 1_000_000);
    for (let i = 1; i <= 5; i++) ring.push({ type: 'message', text: `m${i}` }, new Date(1000 * i));
    expect(ring.list()).toEqual([
      { type: 'message', text: 'm3', seq: 3, at: new Date(3000).toISOString() },
      { type: 'message', text: 'm4', seq: 4, at: new Date(4000).toISOString() },
      { type: 'message', text: 'm5', seq: 5, at: new Date(5000).toISOString() },
    ]);
    expect(ring.total).toBe(5);
    const small = new EventRing(200, 2_000);
    for (let i = 0; i < 50; i++) small.push({ type: 'message', text: 'x'.repeat(100) });
    const kept = small.list();
    expect(Buffer.byteLength(JSON.stringify(kept))).toBeLessThanOrEqual(2_000 + kept.length);
    expect(kept.at(-1)?.seq).toBe(50);
  });

  it('cuts long texts, nested ones included, so one event never fills the ring', () => {
    const ring = new EventRing();
    const long = 'y'.repeat(EVENT_TEXT_CHARS * 3);
    const entry = ring.push({ type: 'tool_call', toolCall: { id: 'c', output: long } });
    const output = (entry.toolCall as { output: string }).output;
    expect(output.length).toBeLessThan(EVENT_TEXT_CHARS + 40);
    expect(output).toContain(`[cut: ${long.length} chars]`);
  });

  it('keeps an event’s own fields only, and never lets an agent’s "__proto__" reach a prototype', () => {
    const ring = new EventRing();
    const event = JSON.parse('{"type":"progress","__proto__":{"polluted":true},"nested":{"__proto__":{"x":1},"k":"v"}}');
    const entry = ring.push(event, new Date(0));
    expect(Object.getPrototypeOf(entry)).toBe(Object.prototype);
    expect(Object.getPrototypeOf(entry.nested)).toBe(Object.prototype);
    expect(entry).toEqual({ type: 'progress', nested: { k: 'v' }, seq: 1, at: new Date(0).toISOString() });
    expect((entry as { polluted?: unknown }).polluted).toBeUndefined();
    // The agent's event itself is left as it was.
    expect(Object.hasOwn(event, '__proto__')).toBe(true);
  });
});

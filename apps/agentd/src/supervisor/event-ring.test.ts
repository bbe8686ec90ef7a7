import { describe, expect, it } from 'vitest';
import { boundEventTexts, EVENT_TEXT_CHARS, EventRing } from './event-ring.js';

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
    const event = JSON.parse(
      '{"type":"progress","__proto__":{"polluted":true},"nested":{"__proto__":{"x":1},"k":"v"}}',
    );
    const entry = ring.push(event, new Date(0));
    expect(Object.getPrototypeOf(entry)).toBe(Object.prototype);
    expect(Object.getPrototypeOf(entry.nested)).toBe(Object.prototype);
    expect(entry).toEqual({ type: 'progress', nested: { k: 'v' }, seq: 1, at: new Date(0).toISOString() });
    expect((entry as { polluted?: unknown }).polluted).toBeUndefined();
    // The agent's event itself is left as it was.
    expect(Object.hasOwn(event, '__proto__')).toBe(true);
  });

  it('drops exactly the entries an exact byte count drops, whatever the texts hold', () => {
    // The ring as it was: every entry's JSON measured at once.
    const reference = (maxEvents: number, maxBytes: number) => {
      const kept: { entry: unknown; bytes: number }[] = [];
      let bytes = 0;
      let seq = 0;
      return {
        push(event: Record<string, unknown>, at: Date) {
          seq += 1;
          const entry = { ...boundEventTexts(event), seq, at: at.toISOString() };
          const size = Buffer.byteLength(JSON.stringify(entry), 'utf8');
          kept.push({ entry, bytes: size });
          bytes += size;
          while (kept.length > 1 && (kept.length > maxEvents || bytes > maxBytes))
            bytes -= kept.shift()?.bytes ?? 0;
        },
        list: () => kept.map(({ entry }) => entry),
      };
    };
    let state = 7;
    const random = (n: number): number => {
      state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
      return state % n;
    };
    const alphabet = ['a', '"', '\\', '\n', '\u0001', 'é', '✓', '𝄞', '\ud800', ' '];
    const text = (): string =>
      Array.from({ length: random(300) }, () => alphabet[random(alphabet.length)]).join('');
    const value = (depth: number): unknown => {
      const kind = random(depth > 2 ? 4 : 6);
      if (kind === 0) return text();
      if (kind === 1) return random(2) === 0 ? -random(1e9) / 7 : random(100);
      if (kind === 2) return [true, false, null][random(3)];
      if (kind === 3) return 'x'.repeat(random(2) === 0 ? 10 : EVENT_TEXT_CHARS + random(50));
      if (kind === 4) return Array.from({ length: random(5) }, () => value(depth + 1));
      return Object.fromEntries(
        Array.from({ length: random(5) }, (_, i) => [`${text().slice(0, 5)}${i}`, value(depth + 1)]),
      );
    };
    for (const [maxEvents, maxBytes] of [
      [50, 3_000],
      [200, 20_000],
      [10, 1_000_000],
    ] as const) {
      const ring = new EventRing(maxEvents, maxBytes);
      const exact = reference(maxEvents, maxBytes);
      for (let i = 0; i < 400; i++) {
        const event = {
          type: 'message',
          text: text(),
          detail: value(0),
          seq: random(3) === 0 ? 'theirs' : undefined,
        };
        const at = new Date(1_765_000_000_000 + i);
        ring.push(event, at);
        exact.push(event, at);
        expect(ring.list()).toEqual(exact.list());
      }
    }
  });
});

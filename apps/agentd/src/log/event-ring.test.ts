import type { LogLevel } from '@agentd/rpc-frame';
import { describe, expect, it } from 'vitest';
import { EventRing } from './event-ring.js';

const at = (level: LogLevel, msg: string) => ({
  time: '2026-01-01T00:00:00Z',
  level,
  msg,
});

describe('EventRing', () => {
  it('keeps the newest events, numbers them, and reports what a reader missed', () => {
    const ring = new EventRing(3);
    for (let i = 1; i <= 5; i++) ring.append(at('info', `m${i}`));
    const page = ring.read();
    expect(page.events.map((e) => e.seq)).toEqual([3, 4, 5]);
    expect(page).toMatchObject({ oldestSeq: 3, newestSeq: 5, dropped: 2, missed: 2 });
    expect(ring.read({ after: 4 }).events.map((e) => e.msg)).toEqual(['m5']);
    expect(ring.read({ after: 4 }).missed).toBe(0);
  });

  it('filters by minimum level', () => {
    const ring = new EventRing(10);
    ring.append(at('debug', 'd'));
    ring.append(at('notice', 'n'));
    ring.append(at('warning', 'w'));
    ring.append(at('error', 'e'));
    ring.append(at('emergency', 'x'));
    expect(ring.read({ level: 'warning' }).events.map((e) => e.msg)).toEqual(['w', 'e', 'x']);
    expect(ring.read({ level: 'notice' }).events.map((e) => e.msg)).toEqual(['n', 'w', 'e', 'x']);
  });

  it('pages large reads', () => {
    const ring = new EventRing(2000);
    for (let i = 0; i < 600; i++) ring.append(at('info', `m${i}`));
    const first = ring.read();
    expect(first.events).toHaveLength(512);
    expect(first.truncated).toBe(true);
    const next = ring.read({ after: first.events.at(-1)?.seq ?? 0 });
    expect(next.events).toHaveLength(88);
    expect(next.truncated).toBe(false);
  });
});

import { describe, expect, it } from 'vitest';
import { DueQueue } from '../../src/schedules/due-queue.js';

describe('DueQueue', () => {
  it('pops due ids earliest first and leaves the rest', () => {
    const q = new DueQueue();
    [50, 10, 40, 20, 30].forEach((at, i) => q.set(i + 1, at));
    expect(q.popDue(30).map((e) => e.at)).toEqual([10, 20, 30]);
    expect(q.peekAt()).toBe(40);
    expect(q.size).toBe(2);
  });

  it('forgets a re-armed or deleted id at its old time', () => {
    const q = new DueQueue();
    q.set(1, 10);
    q.set(2, 20);
    q.set(1, 100);
    q.delete(2);
    expect(q.peekAt()).toBe(100);
    expect(q.popDue(1000)).toEqual([{ id: 1, at: 100 }]);
    expect(q.peekAt()).toBeNull();
  });

  it('stays ordered through many random operations and compaction', () => {
    const q = new DueQueue();
    const live = new Map<number, number>();
    let seed = 7;
    const rand = () => (seed = (seed * 48271) % 2147483647);
    for (let i = 0; i < 20_000; i++) {
      const id = rand() % 500;
      if (rand() % 4 === 0) {
        q.delete(id);
        live.delete(id);
      } else {
        const at = rand() % 100_000;
        q.set(id, at);
        live.set(id, at);
      }
    }
    const popped = q.popDue(Infinity);
    expect(popped.map((e) => e.at)).toEqual([...live.values()].sort((a, b) => a - b));
    expect(new Set(popped.map((e) => e.id))).toEqual(new Set(live.keys()));
  });
});

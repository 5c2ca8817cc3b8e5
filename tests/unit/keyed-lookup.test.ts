import { describe, expect, it } from 'vitest';
import { createKeyedLookup } from '../../src/chat/keyed-lookup.js';

function lookup(options: { capacity?: number; ttlMs?: number } = {}) {
  let t = 0;
  const calls: string[] = [];
  const waiting = new Map<string, (v: string) => void>();
  const failing = new Set<string>();
  const cache = createKeyedLookup<string>({
    capacity: options.capacity ?? 10,
    ...(options.ttlMs !== undefined ? { ttlMs: options.ttlMs } : {}),
    now: () => t,
    load: (key) => {
      calls.push(key);
      if (failing.has(key)) return Promise.reject(new Error('ratelimited'));
      return new Promise((resolve) => waiting.set(key, resolve));
    },
  });
  return { cache, calls, waiting, failing, advance: (ms: number) => (t += ms) };
}

describe('keyed lookup', () => {
  it('shares one call between concurrent asks and caches the answer', async () => {
    const { cache, calls, waiting } = lookup();
    const a = cache.get('k');
    const b = cache.get('k');
    waiting.get('k')!('v');
    expect(await a).toBe('v');
    expect(await b).toBe('v');
    expect(await cache.get('k')).toBe('v');
    expect(calls).toEqual(['k']);
  });

  it('keeps no failure: the next ask calls again', async () => {
    const { cache, calls, failing } = lookup();
    failing.add('k');
    await expect(cache.get('k')).rejects.toThrow('ratelimited');
    await expect(cache.get('k')).rejects.toThrow('ratelimited');
    expect(calls).toEqual(['k', 'k']);
  });

  it('lets a value set during the call win over the call', async () => {
    const { cache, waiting } = lookup();
    const pending = cache.get('k');
    cache.set('k', 'newer');
    waiting.get('k')!('older');
    expect(await pending).toBe('newer');
    expect(cache.peek('k')).toBe('newer');
  });

  it('forgets the least recently used beyond its capacity, and stale entries after the ttl', async () => {
    const { cache, advance } = lookup({ capacity: 2, ttlMs: 1000 });
    cache.set('a', '1');
    cache.set('b', '2');
    cache.peek('a');
    cache.set('c', '3');
    expect(cache.peek('b')).toBeUndefined();
    expect(cache.peek('a')).toBe('1');
    advance(1000);
    expect(cache.peek('a')).toBeUndefined();
  });
});

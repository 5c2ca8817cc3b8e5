/**
 * A bounded, least-recently-used cache in front of a slow lookup (a platform API call): concurrent asks
 * for one key share a single call, answers are kept for `ttlMs` (default: until evicted), failures are not
 * kept, and a value set while a call is in flight wins over the call's answer (the newer fact).
 */
export interface KeyedLookup<V> {
  /** The cached value, if fresh; never calls the platform. */
  peek(key: string): V | undefined;
  /** Records a value (e.g. the bot just joined a thread). */
  set(key: string, value: V): void;
  /** The cached value, or the shared in-flight call, or a new call. */
  get(key: string): Promise<V>;
}

export interface KeyedLookupOptions<V> {
  load(key: string): Promise<V>;
  /** Entries kept at most; the least recently used goes first. */
  capacity: number;
  ttlMs?: number;
  now?: () => number;
}

export function createKeyedLookup<V>(options: KeyedLookupOptions<V>): KeyedLookup<V> {
  const now = options.now ?? Date.now;
  const ttl = options.ttlMs ?? Number.POSITIVE_INFINITY;
  const entries = new Map<string, { value: V; at: number }>();
  const inFlight = new Map<string, Promise<V>>();
  const set = (key: string, value: V) => {
    entries.delete(key);
    entries.set(key, { value, at: now() });
    if (entries.size > options.capacity) entries.delete(entries.keys().next().value!);
  };
  const peek = (key: string): V | undefined => {
    const hit = entries.get(key);
    if (!hit) return undefined;
    if (now() - hit.at >= ttl) {
      entries.delete(key);
      return undefined;
    }
    entries.delete(key);
    entries.set(key, hit);
    return hit.value;
  };
  return {
    peek,
    set,
    get(key) {
      const hit = peek(key);
      if (hit !== undefined) return Promise.resolve(hit);
      let pending = inFlight.get(key);
      if (!pending) {
        const startedAt = now();
        pending = options
          .load(key)
          .then((value) => {
            const newer = entries.get(key);
            if (newer && newer.at >= startedAt) return newer.value;
            set(key, value);
            return value;
          })
          .finally(() => inFlight.delete(key));
        inFlight.set(key, pending);
      }
      return pending;
    },
  };
}

/** How a meter reads today's stored totals (one indexed lookup each). */
export interface MeterReads {
  user(day: string, key: string): Promise<number>;
  team(day: string): Promise<number>;
}

/** Today's totals of one measure (tokens or dollars) for the daily budgets, kept so checks rarely read the store. */
export interface DailyMeter {
  /** `key`'s total on `day`: from memory when known, else read. */
  user(day: string, key: string, limit: number): Promise<number>;
  /** Everyone's total on `day`. */
  team(day: string, limit: number): Promise<number>;
  /** A record for `day` starts being written (a load running meanwhile may miss it, so it is not kept). */
  begin(day: string): void;
  /** The record written by `begin` is in the store: memory adds it. */
  add(day: string, key: string, amount: number): void;
}

interface DayCache {
  day: string;
  team: number | null;
  users: Map<string, number>;
  /** Records begun today so far (a load compares it before and after its read). */
  records: number;
}

/**
 * One measure's daily totals. With one process owning the database (`shared` false) today's totals live in
 * memory: a person's first check of the day costs one read, later ones none, and each record adds to what is
 * known; a load that a record overtook is used once but not kept (it may have missed that record). With
 * processes sharing the database, the store is the truth for every check: each reads it, and memory is only a
 * lower bound that spares the read once a limit is known to be passed (usage only grows within a day).
 */
export function createDailyMeter(reads: MeterReads, shared: boolean): DailyMeter {
  let cache: DayCache = { day: '', team: null, users: new Map(), records: 0 };
  const on = (day: string): DayCache => {
    if (cache.day !== day) cache = { day, team: null, users: new Map(), records: 0 };
    return cache;
  };
  return {
    async user(day, key, limit) {
      const c = on(day);
      const known = c.users.get(key);
      if (known !== undefined && (!shared || known >= limit)) return known;
      const before = c.records;
      const loaded = await reads.user(day, key);
      if (shared) {
        // Memory holds only what reads returned (records do not add to it here): each is a lower bound.
        const lowerBound = Math.max(loaded, c.users.get(key) ?? 0);
        c.users.set(key, lowerBound);
        return lowerBound;
      }
      if (c.records === before && !c.users.has(key)) c.users.set(key, loaded);
      return c.users.get(key) ?? loaded;
    },
    async team(day, limit) {
      const c = on(day);
      if (c.team !== null && (!shared || c.team >= limit)) return c.team;
      const before = c.records;
      const loaded = await reads.team(day);
      if (shared) {
        c.team = Math.max(loaded, c.team ?? 0);
        return c.team;
      }
      if (c.records === before) c.team ??= loaded;
      return c.team ?? loaded;
    },
    begin(day) {
      on(day).records++;
    },
    add(day, key, amount) {
      // Shared store: a record may already be in a read that overtook this call, so memory keeps reads only.
      if (shared) return;
      const c = on(day);
      const known = c.users.get(key);
      if (known !== undefined) c.users.set(key, known + amount);
      if (c.team !== null) c.team += amount;
    },
  };
}

import type { Logger } from '../logger.js';

/** Timers the feeds poll with (the app's clock: tests and benchmarks may drive them). */
export interface FeedTimers {
  setTimer(fn: () => void, ms: number): unknown;
  clearTimer(handle: unknown): void;
}

/**
 * Change notices for the live pages, by polling the database while someone watches: one poll per key per period
 * however many pages watch it, none when nobody does. Polling the shared database (not this process's memory)
 * is what shows every process's runs on PostgreSQL.
 */
export interface LiveFeeds {
  /**
   * Calls `onChange` whenever `poll()`'s answer differs from its previous one (the first answer sets the start);
   * returns the unsubscribe. Subscribers of one key share its poll.
   */
  subscribe(key: string, poll: () => Promise<string>, onChange: () => void): () => void;
}

interface Feed {
  readonly poll: () => Promise<string>;
  readonly listeners: Set<() => void>;
  last: string | null;
  timer: unknown;
}

export function createLiveFeeds(options: { everyMs: number; timers: FeedTimers; logger: Logger }): LiveFeeds {
  const feeds = new Map<string, Feed>();
  const tick = (key: string, feed: Feed) => {
    feed.timer = null;
    void feed
      .poll()
      .then((now) => {
        const changed = feed.last !== null && now !== feed.last;
        feed.last = now;
        if (changed) for (const l of feed.listeners) l();
      })
      .catch((err: unknown) => options.logger.warn({ err, key }, 'a live page could not read the database'))
      .finally(() => {
        if (feeds.get(key) === feed && feed.listeners.size > 0)
          feed.timer = options.timers.setTimer(() => tick(key, feed), options.everyMs);
      });
  };
  return {
    subscribe(key, poll, onChange) {
      let feed = feeds.get(key);
      if (!feed) {
        feed = { poll, listeners: new Set(), last: null, timer: null };
        feeds.set(key, feed);
        tick(key, feed);
      }
      const f = feed;
      f.listeners.add(onChange);
      return () => {
        f.listeners.delete(onChange);
        if (f.listeners.size === 0) {
          if (f.timer !== null) options.timers.clearTimer(f.timer);
          f.timer = null;
          feeds.delete(key);
        }
      };
    },
  };
}

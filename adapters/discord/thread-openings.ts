import type { DiscordLocation } from './discord-thread-id.js';

/** How many failed openings are remembered: far more than can be under way at once. */
const FAILED_KEPT = 1000;

/**
 * Threads Errand is opening while it already works in them. A thread started from a message takes the
 * message's id on Discord, so the core knows the conversation before the thread exists and starts the run
 * beside the opening instead of after it (one REST round trip less before the answer). Every call to such a
 * thread waits here for its opening; if the opening failed, calls go to the parent channel instead (today's
 * fallback: the answer lands in the channel). Kept in this process only: the run, and so its posts, stay here.
 */
export interface ThreadOpenings {
  /** Records that the thread `threadId` is being opened by `opening`. */
  begin(threadId: string, opening: Promise<unknown>): void;
  /** Where calls for this location go: after an opening under way has ended; the channel when it failed. */
  settle(loc: DiscordLocation): Promise<DiscordLocation>;
}

/** The openings of one adapter. */
export function createThreadOpenings(): ThreadOpenings {
  const pending = new Map<string, Promise<void>>();
  const failed = new Set<string>();
  return {
    begin(threadId, opening) {
      failed.delete(threadId);
      const ended = opening.then(
        () => undefined,
        () => {
          failed.add(threadId);
          if (failed.size > FAILED_KEPT) failed.delete(failed.values().next().value!);
        },
      );
      const settled = ended.finally(() => {
        if (pending.get(threadId) === settled) pending.delete(threadId);
      });
      pending.set(threadId, settled);
    },
    async settle(loc) {
      if (loc.threadId === null) return loc;
      const opening = pending.get(loc.threadId);
      if (opening) await opening;
      return failed.has(loc.threadId) ? { ...loc, threadId: null } : loc;
    },
  };
}

import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createChannelPacing } from '../../src/cluster/channel-pacing.js';
import type { ClusterPeers } from '../../src/cluster/wake-channel.js';
import { closePostgres, openPostgres, type PgDb } from '../../src/db/pg-client.js';
import { FakeClock } from '../fakes/fake-clock.js';
import { useTestDatabase } from '../support/test-database.js';

const database = useTestDatabase();

/** What the wake channel tells the pacing of the other processes, set by the test. */
function peersOf(
  alone: boolean,
): ClusterPeers & { alone: () => boolean; set(alone: boolean, announce: boolean): void } {
  const handlers = new Set<() => void>();
  let now = alone;
  return {
    alone: () => now,
    onJoined(handler) {
      handlers.add(handler);
      return () => void handlers.delete(handler);
    },
    set(next, announce) {
      now = next;
      if (announce) for (const h of handlers) h();
    },
  };
}

async function slotOf(db: PgDb, platform: string, channel: string): Promise<number | null> {
  const { rows } = await db.$client.query<{ next: string }>(
    'select next_allowed_at as next from channel_pacing where platform = $1 and channel = $2',
    [platform, channel],
  );
  return rows[0] ? Number(rows[0].next) : null;
}
let first: PgDb;
let second: PgDb;
beforeAll(async () => {
  if (database.skip) return;
  first = await openPostgres(database.url, { poolSize: 5 });
  second = await openPostgres(database.url, { poolSize: 5 });
});
afterAll(async () => {
  if (database.skip) return;
  await closePostgres(first);
  await closePostgres(second);
});

describe.skipIf(database.skip)('channel pacing across processes', () => {
  it('spaces posts to one channel at least the interval apart when two processes ask at once', async () => {
    const clock = new FakeClock();
    const a = createChannelPacing(first, clock);
    const b = createChannelPacing(second, clock);
    const waits = await Promise.all(
      Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? a : b).reserve('slack', 'C1', 1000)),
    );
    expect(waits.sort((x, y) => x - y)).toEqual(Array.from({ length: 20 }, (_, i) => i * 1000));
  });

  it('lets a channel that has been quiet post at once, and keeps channels independent', async () => {
    const clock = new FakeClock();
    const a = createChannelPacing(first, clock);
    const b = createChannelPacing(second, clock);
    expect(await a.reserve('discord', 'D1', 1000)).toBe(0);
    expect(await b.reserve('discord', 'D1', 1000)).toBe(1000);
    expect(await b.reserve('discord', 'D2', 1000)).toBe(0);
    expect(await a.reserve('slack', 'D1', 1000)).toBe(0);
    clock.advance(400);
    expect(await a.reserve('discord', 'D1', 1000)).toBe(1600);
    clock.advance(60_000);
    expect(await b.reserve('discord', 'D1', 1000)).toBe(0);
  });

  it('with a burst, lets a quiet channel take that many slots at once from any process, then one per interval', async () => {
    const clock = new FakeClock();
    const a = createChannelPacing(first, clock);
    const b = createChannelPacing(second, clock);
    const waits = await Promise.all(
      Array.from({ length: 6 }, (_, i) => (i % 2 === 0 ? a : b).reserve('slack', 'C2', 1000, 3)),
    );
    expect(waits.sort((x, y) => x - y)).toEqual([0, 0, 0, 1000, 2000, 3000]);
    clock.advance(60_000);
    expect(await a.reserve('slack', 'C2', 1000, 3)).toBe(0);
    expect(await b.reserve('slack', 'C2', 1000, 3)).toBe(0);
  });

  it('alone, paces in memory without a statement, and writes the slots still ahead when another process appears', async () => {
    const clock = new FakeClock();
    const peers = peersOf(true);
    const a = createChannelPacing(first, clock, peers);
    const b = createChannelPacing(second, clock);
    // The same slots the table would hand out, and nothing written.
    expect(await a.reserve('slack', 'A1', 1000)).toBe(0);
    expect(await a.reserve('slack', 'A1', 1000)).toBe(1000);
    expect(await a.reserve('slack', 'A2', 1000)).toBe(0);
    expect(await slotOf(first, 'slack', 'A1')).toBeNull();
    clock.advance(1500);
    // Another process starts: its hello reaches this one, which writes A1's slot (still ahead) but not A2's (passed).
    peers.set(false, true);
    await vi.waitFor(async () => expect(await slotOf(first, 'slack', 'A1')).toBe(clock.now() + 500), 10_000);
    expect(await slotOf(first, 'slack', 'A2')).toBeNull();
    // The newcomer's first post to A1 waits for the slot this process still holds.
    expect(await b.reserve('slack', 'A1', 1000)).toBe(500);
    // And this process, no longer alone, goes through the table too.
    expect(await a.reserve('slack', 'A1', 1000)).toBe(1500);
  });

  it('writes what it held alone before its next reservation when the other process appeared unannounced', async () => {
    const clock = new FakeClock();
    const peers = peersOf(true);
    const a = createChannelPacing(first, clock, peers);
    const b = createChannelPacing(second, clock);
    expect(await a.reserve('discord', 'A3', 1000)).toBe(0);
    expect(await a.reserve('discord', 'A3', 1000)).toBe(1000);
    // The listener reconnected (not alone as far as it knows), and no hello was heard.
    peers.set(false, false);
    expect(await a.reserve('discord', 'A3', 1000)).toBe(2000);
    expect(await b.reserve('discord', 'A3', 1000)).toBe(3000);
  });

  it('refuses an interval that is not a non-negative whole number of milliseconds', async () => {
    const pacing = createChannelPacing(first, new FakeClock());
    await expect(pacing.reserve('slack', 'C9', -1)).rejects.toThrow(RangeError);
    await expect(pacing.reserve('slack', 'C9', 1.5)).rejects.toThrow(RangeError);
    await expect(pacing.reserve('slack', 'C9', 1000, 0)).rejects.toThrow(RangeError);
  });
});

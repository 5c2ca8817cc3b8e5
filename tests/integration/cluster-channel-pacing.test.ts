import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createChannelPacing } from '../../src/cluster/channel-pacing.js';
import { closePostgres, openPostgres, type PgDb } from '../../src/db/pg-client.js';
import { FakeClock } from '../fakes/fake-clock.js';
import { useTestDatabase } from '../support/test-database.js';

const database = useTestDatabase();
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

  it('refuses an interval that is not a non-negative whole number of milliseconds', async () => {
    const pacing = createChannelPacing(first, new FakeClock());
    await expect(pacing.reserve('slack', 'C9', -1)).rejects.toThrow(RangeError);
    await expect(pacing.reserve('slack', 'C9', 1.5)).rejects.toThrow(RangeError);
    await expect(pacing.reserve('slack', 'C9', 1000, 0)).rejects.toThrow(RangeError);
  });
});

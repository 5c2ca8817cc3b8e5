import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { createGatewayLock, type GatewayLock } from '../../src/cluster/gateway-lock.js';
import { createLogger } from '../../src/logger.js';
import { FakeClock } from '../fakes/fake-clock.js';
import { waitFor } from '../fakes/wait-for.js';
import { useTestDatabase } from '../support/test-database.js';

const database = useTestDatabase();
const logger = createLogger('silent');
const RETRY_MS = 3000;
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

interface Contender {
  lock: GatewayLock;
  clock: FakeClock;
  log: string[];
}

function contender(id: string): Contender {
  const clock = new FakeClock();
  const lock = createGatewayLock({ url: database.url, processId: id, clock, logger, retryMs: RETRY_MS });
  const log: string[] = [];
  lock.onAcquired(() => log.push('acquired'));
  lock.onLost(() => log.push('lost'));
  cleanups.push(() => lock.close());
  return { lock, clock, log };
}

async function admin<T extends pg.QueryResultRow>(text: string, values: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    return (await client.query<T>(text, values)).rows;
  } finally {
    await client.end();
  }
}

/** Advisory locks held on this file's database (the server is shared with the files running beside it). */
const advisoryLocksHeld = async () =>
  Number(
    (
      await admin<{ n: string }>(
        "select count(*) as n from pg_locks where locktype = 'advisory' and granted and database = (select oid from pg_database where datname = current_database())",
      )
    )[0]!.n,
  );

/** Moves a contender's clock one retry interval on and waits for the attempt that starts to finish. */
async function nextAttempt(c: Contender): Promise<void> {
  c.clock.advance(RETRY_MS);
  await waitFor(() => c.clock.pendingTimers() === 1, 10_000, 'the attempt to finish and the next to be scheduled');
}

describe.skipIf(database.skip)('gateway lock (session advisory lock)', () => {
  it('gives the lock to exactly one of two contenders; the other keeps trying without taking it', async () => {
    const a = contender('proc-a');
    const b = contender('proc-b');
    await Promise.all([a.lock.start(), b.lock.start()]);
    expect([a.lock.held, b.lock.held].filter(Boolean)).toHaveLength(1);
    const standby = a.lock.held ? b : a;
    await nextAttempt(standby);
    await nextAttempt(standby);
    expect(standby.lock.held).toBe(false);
    expect(standby.log).toEqual([]);
  });

  it("hands the lock to the standby within one retry interval when the holder's connection is killed", async () => {
    const a = contender('proc-a');
    await a.lock.start();
    const b = contender('proc-b');
    await b.lock.start();
    expect([a.lock.held, b.lock.held]).toEqual([true, false]);

    const killed = await admin<{ ok: boolean }>(
      "select pg_terminate_backend(pid) as ok from pg_stat_activity where datname = current_database() and application_name = 'errand-gateway:proc-a'",
    );
    expect(killed).toEqual([{ ok: true }]);
    await waitFor(() => a.log.includes('lost'), 10_000, 'the holder to notice it lost the lock');
    expect(a.lock.held).toBe(false);
    await waitFor(
      async () => (await advisoryLocksHeld()) === 0,
      10_000,
      'the server to release the lock of the killed session',
    );

    await nextAttempt(b);
    expect(b.lock.held).toBe(true);
    expect(b.log).toEqual(['acquired']);

    // The old holder reconnects as a standby and does not take the lock back.
    await nextAttempt(a);
    expect(a.lock.held).toBe(false);
    expect(a.log).toEqual(['acquired', 'lost']);
  });

  it('releases the lock on close, so a standby takes it at its next attempt', async () => {
    const a = contender('proc-a');
    await a.lock.start();
    const b = contender('proc-b');
    await b.lock.start();
    await a.lock.close();
    expect(a.log).toEqual(['acquired']);
    await nextAttempt(b);
    expect(b.lock.held).toBe(true);
    expect(await advisoryLocksHeld()).toBe(1);
  });
});

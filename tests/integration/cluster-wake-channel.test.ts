import pg from 'pg';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createWakeChannel, WAKE_CHANNEL, type WakeChannel, type WakeEvent } from '../../src/cluster/wake-channel.js';
import { closePostgres, openPostgres, type PgDb } from '../../src/db/pg-client.js';
import { createLogger } from '../../src/logger.js';
import { FakeClock } from '../fakes/fake-clock.js';
import { waitFor } from '../fakes/wait-for.js';
import { useTestDatabase } from '../support/test-database.js';

const database = useTestDatabase();
const logger = createLogger('silent');
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** One simulated process: its own pool and its own listener. */
async function processWith(
  id: string,
  clock = new FakeClock(),
): Promise<{ db: PgDb; wake: WakeChannel; events: WakeEvent[]; clock: FakeClock }> {
  const db = await openPostgres(database.url, { poolSize: 2 });
  const wake = createWakeChannel({ url: database.url, pool: db.$client, processId: id, clock, logger });
  const events: WakeEvent[] = [];
  wake.onWake((e) => void events.push(e));
  await wake.start();
  cleanups.push(async () => {
    await wake.close();
    await closePostgres(db);
  });
  return { db, wake, events, clock };
}

describe.skipIf(database.skip)('wake channel (LISTEN/NOTIFY)', () => {
  it('wakes every listening process, telling each whether the wake-up came from itself', async () => {
    const a = await processWith('proc-a');
    const b = await processWith('proc-b');
    await a.wake.notify('task', 'slack:T1:C1:1.0');
    await waitFor(() => b.events.length === 1 && a.events.length === 1, 10_000, 'both processes to be woken');
    expect(b.events).toEqual([{ kind: 'task', conversationId: 'slack:T1:C1:1.0', fromSelf: false }]);
    expect(a.events).toEqual([{ kind: 'task', conversationId: 'slack:T1:C1:1.0', fromSelf: true }]);
  });

  it('wakes the others only while another process listens: alone it sends nothing, a process that starts counts from its hello and is sent what was skipped just before, one that ends is forgotten at the next look', async () => {
    // An onlooker on the channel that is no Errand process (its application_name is not a listener's).
    const onlooker = new pg.Client({ connectionString: database.url, application_name: 'onlooker' });
    await onlooker.connect();
    cleanups.push(() => onlooker.end());
    const heard: string[] = [];
    onlooker.on('notification', (m) => void heard.push(m.payload ?? ''));
    await onlooker.query(`listen ${WAKE_CHANNEL}`);

    const a = await processWith('proc-a');
    await waitFor(() => heard.length === 1, 10_000, "a's hello");
    expect(a.wake.othersListening()).toBe(false);
    expect(await a.wake.wakeOthers('task', 'slack:T1:C1:2.0')).toBe(false);
    // Long before any other process started: whatever it was, that process's own start finds it.
    a.clock.advance(6_000);
    expect(await a.wake.wakeOthers('task', 'slack:T1:C1:3.0')).toBe(false);
    const b = await processWith('proc-b');
    await waitFor(() => heard.length >= 2, 10_000, "b's hello");
    await waitFor(() => a.wake.othersListening() === true, 10_000, "a to hear b's hello");
    // a heard b's hello: b is reached from its first moment, without waiting for a look, and is sent what a skipped
    // just before (b listened already, and its start may have looked before that work was committed).
    await waitFor(() => b.events.length === 1, 10_000, 'the skipped wake-up sent to b');
    expect(b.events).toEqual([{ kind: 'task', conversationId: 'slack:T1:C1:3.0', fromSelf: false }]);
    expect(await a.wake.wakeOthers('task', 'slack:T1:C1:4.0')).toBe(true);
    await waitFor(() => b.events.length === 2 && a.events.length === 2 && heard.length === 4, 10_000, 'everyone woken');
    expect(b.events.at(-1)).toEqual({ kind: 'task', conversationId: 'slack:T1:C1:4.0', fromSelf: false });
    // The hellos are nobody's work: no handler saw them.
    expect(a.events).toEqual([
      { kind: 'task', conversationId: 'slack:T1:C1:3.0', fromSelf: true },
      { kind: 'task', conversationId: 'slack:T1:C1:4.0', fromSelf: true },
    ]);
    expect(heard.map((p) => JSON.parse(p) as { kind: string; conversationId: string })).toEqual([
      expect.objectContaining({ kind: 'hello', origin: 'proc-a' }),
      expect.objectContaining({ kind: 'hello', origin: 'proc-b' }),
      expect.objectContaining({ kind: 'task', conversationId: 'slack:T1:C1:3.0', origin: 'proc-a' }),
      expect.objectContaining({ kind: 'task', conversationId: 'slack:T1:C1:4.0', origin: 'proc-a' }),
    ]);

    await b.wake.close();
    // Its backend ends a moment after the connection closes: the look sees it gone then.
    await waitFor(
      async () => {
        await a.wake.lookForOthers();
        return a.wake.othersListening() === false;
      },
      10_000,
      "b's listener gone",
    );
    expect(await a.wake.wakeOthers('answer', 'slack:T1:C1:5.0')).toBe(false);
    // notify still reaches everyone listening, this process included.
    await a.wake.notify('stop', 'slack:T1:C1:6.0');
    await waitFor(() => heard.length === 5, 10_000, 'the stop');
    expect(heard).toHaveLength(5);
  });

  it('says whether this process is alone, and announces another appearing after it was', async () => {
    const a = await processWith('proc-solo-a');
    // Each test's processes end with it, but their backends may linger a moment in pg_stat_activity.
    await vi.waitFor(async () => {
      await a.wake.lookForOthers();
      expect(a.wake.alone()).toBe(true);
    }, 10_000);
    let joined = 0;
    a.wake.onJoined(() => void joined++);
    const b = await processWith('proc-solo-b');
    // b's own look at its start found a: never alone.
    expect(b.wake.alone()).toBe(false);
    await vi.waitFor(() => expect(joined).toBe(1), 10_000);
    expect(a.wake.alone()).toBe(false);
    // Seen again at a look: no second announcement.
    await a.wake.lookForOthers();
    expect(joined).toBe(1);
  });

  it('sends what it skipped while alone to a process a look finds whose hello it never heard', async () => {
    const a = await processWith('proc-look-a');
    await vi.waitFor(async () => {
      await a.wake.lookForOthers();
      expect(a.wake.alone()).toBe(true);
    }, 10_000);
    expect(await a.wake.wakeOthers('answer', 'slack:T1:C1:7.0')).toBe(false);
    // A listener named as an Errand process's, that never says hello (its hello was lost to a's reconnect, say).
    const silent = new pg.Client({ connectionString: database.url, application_name: 'errand-wake:proc-look-z' });
    await silent.connect();
    cleanups.push(() => silent.end());
    const heard: string[] = [];
    silent.on('notification', (m) => void heard.push(m.payload ?? ''));
    await silent.query(`listen ${WAKE_CHANNEL}`);
    await a.wake.lookForOthers();
    expect(a.wake.alone()).toBe(false);
    await vi.waitFor(() => expect(heard).toHaveLength(1), 10_000);
    expect(JSON.parse(heard[0]!)).toEqual({ kind: 'answer', conversationId: 'slack:T1:C1:7.0', origin: 'proc-look-a' });
  });

  it('ignores a notification whose payload is not a wake-up, and keeps listening', async () => {
    const a = await processWith('proc-a');
    await a.db.$client.query('select pg_notify($1, $2)', [WAKE_CHANNEL, '{"kind":"explode","conversationId":"x"}']);
    await a.db.$client.query('select pg_notify($1, $2)', [WAKE_CHANNEL, 'not json']);
    await a.wake.notify('stop', 'discord:G1:C9:T1');
    await waitFor(() => a.events.length > 0, 10_000, 'the valid wake-up');
    expect(a.events).toEqual([{ kind: 'stop', conversationId: 'discord:G1:C9:T1', fromSelf: true }]);
  });

  it('reconnects after its connection is killed, reports a resync, and receives wake-ups again', async () => {
    const a = await processWith('proc-a');
    const b = await processWith('proc-b');
    const killed = await a.db.$client.query<{ ok: boolean }>(
      "select pg_terminate_backend(pid) as ok from pg_stat_activity where datname = current_database() and application_name = 'errand-wake:proc-b'",
    );
    expect(killed.rows).toEqual([{ ok: true }]);
    await waitFor(() => b.clock.pendingTimers() === 1, 10_000, 'the reconnect to be scheduled');
    b.clock.advance(250);
    await waitFor(() => b.events.some((e) => e.kind === 'resync'), 10_000, 'the resync after reconnecting');
    await a.wake.notify('answer', 'slack:T1:C1:2.0');
    await waitFor(() => b.events.length === 2, 10_000, 'the wake-up after reconnecting');
    expect(b.events).toEqual([
      { kind: 'resync' },
      { kind: 'answer', conversationId: 'slack:T1:C1:2.0', fromSelf: false },
    ]);
  });
});

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import { checkChain, GENESIS_HASH } from '../../src/audit/audit-chain.js';
import { openStore } from '../../src/composition/open-store.js';
import type { PostgresStore } from '../../src/composition/pg-store.js';
import type { ErrandStore as Store } from '../../src/composition/errand-store.js';
import { FakeClock } from '../fakes/fake-clock.js';
import { sqliteDb } from '../fakes/sqlite-db.js';
import { useStoreKinds, type StoreKind } from '../support/store-kinds.js';

/*
 * The web console's tables on both databases: the audit chain (appends from several connections stay one line;
 * an edit, a removal or an edited column shows), sign-in links and sessions, and the console's read queries.
 */

const stores = useStoreKinds();
const open: Store[] = [];
const dirs: string[] = [];

afterEach(async () => {
  for (const s of open.splice(0)) await s.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function openTwo(kind: StoreKind, clock: FakeClock): Promise<[Store, Store]> {
  const dir = mkdtempSync(join(tmpdir(), 'errand-console-store-'));
  dirs.push(dir);
  const env = await stores.env(kind);
  const one = await openStore(
    {
      DATABASE_PATH: join(dir, 'errand.db'),
      ...(env.DATABASE_URL ? { DATABASE_URL: env.DATABASE_URL, ERRAND_PROCESS_ID: 'console-store-a' } : {}),
    },
    clock,
  );
  open.push(one);
  if (!env.DATABASE_URL) return [one, one];
  const two = await openStore(
    { DATABASE_PATH: join(dir, 'errand.db'), DATABASE_URL: env.DATABASE_URL, ERRAND_PROCESS_ID: 'console-store-b' },
    clock,
  );
  open.push(two);
  return [one, two];
}

/** Runs one statement on the database behind the store, whichever it is. */
async function raw(store: Store, kind: StoreKind, statement: string): Promise<void> {
  if (kind === 'sqlite') sqliteDb(store).$client.prepare(statement).run();
  else await (store as PostgresStore).db.execute(sql.raw(statement));
}

const check = (store: Store) => checkChain((after) => store.audit.after(after, 7));
const entry = (n: number, actor: string | null = null) => ({
  at: 1_700_000_000_000 + n,
  kind: 'tool_call' as const,
  actor,
  runId: `run-${n % 3}`,
  detail: { tool: 'send_update', n },
});

describe.each(stores.kinds)('the web console on %s', (kind) => {
  it('keeps the audit log one chain while two processes append at once', async () => {
    const [a, b] = await openTwo(kind, new FakeClock());
    await Promise.all(Array.from({ length: 40 }, (_, n) => (n % 2 === 0 ? a : b).audit.append(entry(n))));
    const rows = await a.audit.after(0, 100);
    expect(rows).toHaveLength(40);
    expect(rows[0]!.prevHash).toBe(GENESIS_HASH);
    for (let i = 1; i < rows.length; i++) expect(rows[i]!.prevHash).toBe(rows[i - 1]!.hash);
    expect(await check(b)).toMatchObject({ intact: true, entries: 40, lastHash: rows.at(-1)!.hash });
    expect((await a.audit.page({ runId: 'run-1' }, null, 100)).map((r) => r.runId)).toEqual(Array(13).fill('run-1'));
    expect((await a.audit.page({}, rows[10]!.id, 3)).map((r) => r.id)).toEqual([rows[9]!.id, rows[8]!.id, rows[7]!.id]);
  });

  it('shows an edited entry, a removed one and an edited column where they are', async () => {
    const [store] = await openTwo(kind, new FakeClock());
    for (let n = 0; n < 20; n++) await store.audit.append(entry(n, 'slack:U0ADMIN01'));
    const rows = await store.audit.after(0, 100);
    const id = (i: number) => rows[i]!.id;

    await raw(store, kind, `update audit_log set entry = replace(entry, '"n":5', '"n":6') where id = ${id(5)}`);
    expect(await check(store)).toMatchObject({
      intact: false,
      brokenAt: id(5),
      entries: 5,
      reason: expect.stringContaining('edited'),
    });
    await raw(store, kind, `update audit_log set entry = replace(entry, '"n":6', '"n":5') where id = ${id(5)}`);
    expect(await check(store)).toMatchObject({ intact: true });

    await raw(store, kind, `update audit_log set actor = 'slack:U0INTRUDER' where id = ${id(8)}`);
    expect(await check(store)).toMatchObject({
      intact: false,
      brokenAt: id(8),
      reason: expect.stringContaining('column'),
    });
    await raw(store, kind, `update audit_log set actor = 'slack:U0ADMIN01' where id = ${id(8)}`);

    await raw(store, kind, `delete from audit_log where id = ${id(12)}`);
    expect(await check(store)).toMatchObject({
      intact: false,
      brokenAt: id(13),
      reason: expect.stringContaining('removed'),
    });
  });

  it('spends a sign-in link once, within its time, and ends sessions when they expire', async () => {
    const clock = new FakeClock();
    const [a, b] = await openTwo(kind, clock);
    const now = clock.now();
    const admin = { person: 'discord:445566778899001122', roles: ['334455667788990011'] };
    await a.admin.addLink('hash-1', admin, now + 600_000, now);
    await a.admin.addLink('hash-2', admin, now + 600_000, now);
    const races = await Promise.all([a.admin.takeLink('hash-1', now + 1000), b.admin.takeLink('hash-1', now + 1000)]);
    expect(races.map((r) => r.outcome).sort()).toEqual(['taken', 'used']);
    expect(races.find((r) => r.outcome === 'taken')).toEqual({ outcome: 'taken', principal: admin });
    expect(await b.admin.takeLink('hash-2', now + 600_001)).toEqual({ outcome: 'expired' });
    expect(await b.admin.takeLink('nothing', now)).toEqual({ outcome: 'unknown' });

    await a.admin.addSession('session-1', admin, now + 1000, now);
    expect(await b.admin.session('session-1', now + 999)).toEqual(admin);
    expect(await b.admin.session('session-1', now + 1000)).toBeNull();
    await a.admin.addSession('session-2', admin, now + 5000, now);
    await b.admin.endSession('session-2');
    expect(await a.admin.session('session-2', now)).toBeNull();
    expect(await a.admin.sweep(now + 700_000)).toBe(3);
  });

  it("answers the console's read queries across the database", async () => {
    const clock = new FakeClock(Date.UTC(2026, 0, 5, 9, 0, 0));
    const [store] = await openTwo(kind, clock);
    const ref = { platform: 'slack', workspace: 'T0ERRAND1', channel: 'C0GENERAL1', thread: '1700000000.000100' };
    const conversationId = await store.conversations.ensure(ref);
    const added = await store.tasks.add({
      conversationId,
      title: 'Look at the logs',
      description: 'Look at the logs',
      createdBy: 'user',
      requestedBy: 'U0ALICE01',
    });
    if (!added.ok) throw new Error(added.error);
    expect((await store.tasks.claimNext(conversationId))?.status).toBe('in_progress');
    const before = await store.consoleQueries.runsFingerprint();
    const run = await store.runs.create(conversationId, added.task.id, { userId: 'U0ALICE01' });
    await store.transcript.append({ conversationId, runId: run.id, role: 'user', content: 'Look at the logs' });
    await store.cost.record(run.id, '2026-01-05', 'slack:U0ALICE01', {
      model: 'gpt-4o-mini',
      promptTokens: 1000,
      completionTokens: 200,
      cachedTokens: 0,
      usd: 0.0003,
    });
    await store.usage.record(run.id, '2026-01-05', 'slack:U0ALICE01', { promptTokens: 1000, completionTokens: 200 });
    const afterStart = await store.consoleQueries.runsFingerprint();
    expect(afterStart).not.toBe(before);
    await store.runs.countStep(run.id);
    expect(await store.consoleQueries.runsFingerprint()).not.toBe(afterStart);
    const runFingerprint = await store.consoleQueries.runFingerprint(conversationId, run.id);
    await store.transcript.append({ conversationId, runId: run.id, role: 'assistant', content: 'Reading.' });
    expect(await store.consoleQueries.runFingerprint(conversationId, run.id)).not.toBe(runFingerprint);

    expect(await store.consoleQueries.counts()).toEqual({
      conversations: 1,
      runsRunning: 1,
      runsWaiting: 0,
      tasksPending: 0,
      schedulesActive: 0,
      schedulesPaused: 0,
    });
    const [active] = await store.consoleQueries.activeRuns(10);
    expect(active).toMatchObject({
      id: run.id,
      title: 'Look at the logs',
      status: 'running',
      steps: 1,
      principal: 'U0ALICE01',
      usd: 0.0003,
    });
    expect(active!.owner).toBe(kind === 'postgres' ? 'console-store-a' : null);
    expect((await store.consoleQueries.recentRuns(null, 10)).map((r) => r.id)).toEqual([run.id]);
    expect((await store.consoleQueries.recentRuns(active!.startedAt, 10)).map((r) => r.id)).toEqual([]);
    expect((await store.consoleQueries.runMessages(conversationId, run.id)).map((m) => m.content)).toEqual([
      'Look at the logs',
      'Reading.',
    ]);
    expect(await store.consoleQueries.todoConversations(10)).toEqual([
      { conversationId, open: 1, total: 1, latest: expect.any(Number) },
    ]);
    expect(await store.consoleQueries.usage('2026-01-01')).toEqual([
      { day: '2026-01-05', user: 'slack:U0ALICE01', model: 'gpt-4o-mini', tokens: 1200, usd: 0.0003 },
    ]);
    expect(await store.consoleQueries.channelUsage(Date.UTC(2026, 0, 1))).toEqual([
      { day: '2026-01-05', channel: 'slack:T0ERRAND1:C0GENERAL1', tokens: 1200, usd: 0.0003 },
    ]);
    await store.connections.saveConnection('slack:U0ALICE01', 'linear', {
      tokens: 'sealed-secret',
      scopes: ['read'],
      account: 'alice@example.com',
      expiresAt: null,
    });
    const connections = await store.consoleQueries.connections(10);
    expect(connections).toEqual([
      {
        principal: 'slack:U0ALICE01',
        server: 'linear',
        account: 'alice@example.com',
        scopes: ['read'],
        connectedAt: expect.any(Number),
        expiresAt: null,
      },
    ]);
    await store.memory.remember({
      scope: 'me',
      subject: 'slack:U0ALICE01',
      text: 'private',
      createdBy: 'slack:U0ALICE01',
    });
    await store.memory.remember({
      scope: 'channel',
      subject: 'slack:T0ERRAND1:C0GENERAL1',
      text: 'shared',
      createdBy: 'slack:U0ALICE01',
    });
    expect((await store.consoleQueries.sharedMemories(10)).map((m) => m.text)).toEqual(['shared']);
    expect(await store.consoleQueries.traceOf(run.id)).toBeNull();
    expect(await store.consoleQueries.countSchedules()).toBe(0);
  });
});

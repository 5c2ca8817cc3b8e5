import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eq, sql } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import { createApp, type App } from '../../src/app.js';
import { createPostgresCluster } from '../../src/cluster/cluster-runtime.js';
import { loadConfig } from '../../src/config.js';
import { openDatabase } from '../../src/db/client.js';
import { closePostgres, openPostgres, type PgDb } from '../../src/db/pg-client.js';
import { conversations as pgConversations, runs as pgRuns } from '../../src/db/pg-schema.js';
import { outbox } from '../../src/db/schema.js';
import { createLogger } from '../../src/logger.js';
import type { RunStore } from '../../src/runs/run-store.js';
import { goalMessage } from '../../src/runs/goal-message.js';
import { notices } from '../../src/runs/run-notices.js';
import { createSqliteStore, type SqliteStore } from '../../src/composition/sqlite-store.js';
import type { ErrandStore as Store } from '../../src/composition/errand-store.js';
import { FakeClock } from '../fakes/fake-clock.js';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/fake-openai.js';
import { MemoryAdapter } from '../fakes/memory-adapter.js';
import { waitFor } from '../fakes/wait-for.js';
import { useTestDatabase } from '../support/test-database.js';

/*
 * Two Errand processes (two apps, each with its own coordinator, cluster runtime, pool and adapter) on one
 * database.
 *
 * TEST-ONLY SHIM, until the PostgreSQL Store is on main: the apps share one SQLite store for their data, and
 * `mirrorRunsToPostgres` copies each run's status into PostgreSQL's `runs` table, where the cluster runtime keeps
 * owners and leases, takes runs over and sends LISTEN/NOTIFY wake-ups. Once the PostgreSQL Store exists, replace
 * `openSharedStore` with it (one store per app on DATABASE_URL) and delete the shim; the tests stay as they are.
 */

const database = useTestDatabase();
const logger = createLogger('silent');
const LEASE_MS = 30_000;
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** SHIM: a run store whose status changes are mirrored into PostgreSQL's runs (owner and lease stay the cluster's). */
function mirroredRuns(inner: RunStore, pg: PgDb): RunStore {
  const setStatus = (id: string, status: string) =>
    pg.execute(sql`update runs set status = ${status} where id = ${id}`);
  return {
    ...inner,
    async create(conversationId, taskId) {
      const run = await inner.create(conversationId, taskId);
      const ref = conversationId.split(':');
      await pg
        .insert(pgConversations)
        .values({
          id: conversationId,
          platform: ref[0]!,
          workspace: ref[1]!,
          channel: ref[2]!,
          thread: ref[3] ?? null,
          createdAt: run.startedAt,
          updatedAt: run.startedAt,
        })
        .onConflictDoNothing();
      await pg
        .insert(pgRuns)
        .values({ id: run.id, conversationId, status: 'running', startedAt: run.startedAt, updatedAt: run.startedAt });
      return run;
    },
    async transition(id, from, to, fields) {
      const ok = await inner.transition(id, from, to, fields);
      if (ok) await setStatus(id, to);
      return ok;
    },
    async park(id, question, expiresAt) {
      const ok = await inner.park(id, question, expiresAt);
      if (ok) await setStatus(id, 'waiting_user');
      return ok;
    },
    async unpark(id) {
      const question = await inner.unpark(id);
      if (question) await setStatus(id, 'running');
      return question;
    },
  };
}

/** SHIM: the store with mirrored runs, in and outside transactions. */
function mirrorRunsToPostgres(store: Store, pg: PgDb): Store {
  const runs = mirroredRuns(store.runs, pg);
  return new Proxy(store, {
    get(target, prop, receiver) {
      if (prop === 'runs') return runs;
      if (prop === 'atomically')
        return <T>(work: (tx: Store) => Promise<T>) =>
          target.atomically((tx) => work(tx === target ? receiver : mirrorRunsToPostgres(tx, pg)));
      return Reflect.get(target, prop, target) as unknown;
    },
  });
}

interface Cluster2 {
  sqlite: SqliteStore;
  store: Store;
  model: FakeOpenAI;
  clock: FakeClock;
  makeApp(processId: string): Promise<{ app: App; adapter: MemoryAdapter; pg: PgDb }>;
}

/** One shared database (SQLite data + PostgreSQL runs, see the shim) and a fake model; apps are the processes. */
async function openSharedStore(env: Record<string, string> = {}): Promise<Cluster2> {
  const dir = mkdtempSync(join(tmpdir(), 'errand-cluster-'));
  const clock = new FakeClock();
  const model = await startFakeOpenAI();
  const sqlite = createSqliteStore(openDatabase(join(dir, 'errand.db')), clock, { ownsDb: true });
  const storePg = await openPostgres(database.url, { poolSize: 3 });
  const store = mirrorRunsToPostgres(sqlite, storePg);
  const config = loadConfig({
    OPENAI_BASE_URL: model.baseUrl,
    OPENAI_API_KEY: 'test-key',
    DATABASE_PATH: join(dir, 'errand.db'),
    STREAMING: 'false',
    ...env,
  });
  const apps: App[] = [];
  cleanups.push(async () => {
    for (const app of apps) await app.stop();
    await closePostgres(storePg);
    await sqlite.close();
    await model.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return {
    sqlite,
    store,
    model,
    clock,
    async makeApp(processId) {
      const pg = await openPostgres(database.url, { poolSize: 3 });
      const cluster = createPostgresCluster({ db: pg, url: database.url, processId, clock, logger, leaseMs: LEASE_MS });
      const adapter = new MemoryAdapter('T024BE7LD');
      const app = await createApp({
        config,
        adapters: [adapter],
        clock,
        store,
        cluster,
        logger,
        modelBackoffMs: () => 5,
        taskRetryDelayMs: () => 60_000,
      });
      apps.push(app);
      cleanups.push(() => closePostgres(pg));
      return { app, adapter, pg };
    },
  };
}

const notesIn = (db: SqliteStore, text: string) =>
  db.db
    .select()
    .from(outbox)
    .where(eq(outbox.purpose, 'note'))
    .all()
    .filter((row) => row.payload.text === text);

describe.skipIf(database.skip)('two processes on one database', () => {
  it('a run owned by a dead process (lease expired) is taken over by exactly one, with the note, and answered once', async () => {
    const shared = await openSharedStore();
    const { store, clock } = shared;
    // A process that died mid-run: its task in progress, its run `running` under a lease that has ended.
    const ref = new MemoryAdapter('T024BE7LD').thread('C024BE91L', '1700000000.000100');
    const conversationId = await store.conversations.ensure(ref);
    const added = await store.tasks.add({
      conversationId,
      title: 'Summarise the report',
      description: 'Summarise the report',
      createdBy: 'user',
      requestedBy: 'U024BE7LH',
    });
    if (!added.ok) throw new Error(added.error);
    const run = await store.atomically(async (tx) => {
      const task = (await tx.tasks.claimNext(conversationId))!;
      const created = await tx.runs.create(conversationId, task.id);
      await tx.transcript.append({
        conversationId,
        runId: created.id,
        role: 'user',
        content: goalMessage(task),
        authorId: task.requestedBy,
        platformMessageId: null,
        images: null,
      });
      return created;
    });
    const a = await shared.makeApp('proc-a');
    const b = await shared.makeApp('proc-b');
    await a.pg
      .update(pgRuns)
      .set({ owner: 'proc-dead', leaseUntil: clock.now() - 1 })
      .where(eq(pgRuns.id, run.id));
    shared.model.respondWith(() => ({ text: 'Here is the summary.' }));

    await Promise.all([a.app.start(), b.app.start()]);

    await waitFor(
      async () => (await store.tasks.get(added.task.id))?.status === 'completed',
      20_000,
      'the task to be answered after the takeover',
    );
    const [row] = await a.pg
      .select({ owner: pgRuns.owner, status: pgRuns.status })
      .from(pgRuns)
      .where(eq(pgRuns.id, run.id));
    expect(row).toMatchObject({ status: 'interrupted', owner: expect.stringMatching(/^proc-[ab]$/) });
    expect(notesIn(shared.sqlite, notices.restarted(added.task.id))).toHaveLength(1);
    const answered = shared.model.requests.filter((r) =>
      r.messages.some((m) => m.role === 'user' && m.content === 'Summarise the report'),
    );
    expect(answered).toHaveLength(1);
    await waitFor(
      () => [...a.adapter.posts, ...b.adapter.posts].some((p) => p.text === 'Here is the summary.'),
      20_000,
      'the answer posted',
    );
    expect([...a.adapter.posts, ...b.adapter.posts].filter((p) => p.text === 'Here is the summary.')).toHaveLength(1);
  });

  it('stop on A stops the run executing on B, announced once', async () => {
    const shared = await openSharedStore();
    const a = await shared.makeApp('proc-a');
    const b = await shared.makeApp('proc-b');
    await a.app.start();
    await b.app.start();
    shared.model.reply({ hang: true });
    const thread = b.adapter.thread('C024BE91L', '1700000000.000200');
    await b.adapter.say(thread, 'a long job', { userId: 'U024BE7LH' });
    await waitFor(() => shared.model.hanging() === 1, 10_000, 'the run to be executing on B');
    const conversationId = await shared.store.conversations.ensure(thread);
    expect(b.app.coordinator.isExecuting(conversationId)).toBe(true);
    expect(a.app.coordinator.isExecuting(conversationId)).toBe(false);

    await a.adapter.say(thread, 'stop', { userId: 'U024BE7LH' });

    await waitFor(() => shared.model.requests[0]!.aborted, 10_000, 'the model request on B to be aborted');
    await waitFor(() => !b.app.coordinator.isExecuting(conversationId), 10_000, 'B to let the run go');
    const task = (await shared.store.tasks.list(conversationId))[0]!;
    expect(task.status).toBe('cancelled');
    const stopNote = `⏹️ Stopped #${task.id} (requested by <@U024BE7LH>).`;
    await waitFor(
      () => [...a.adapter.posts, ...b.adapter.posts].some((p) => p.text === stopNote),
      10_000,
      'the stop announced',
    );
    await b.app.coordinator.idle();
    expect([...a.adapter.posts, ...b.adapter.posts].map((p) => p.text)).toEqual([stopNote]);
  });

  it('a task queued on a process with no free slot starts at once on another one, woken without a heartbeat', async () => {
    const shared = await openSharedStore({ MAX_CONCURRENT_RUNS: '1' });
    const a = await shared.makeApp('proc-a');
    const b = await shared.makeApp('proc-b');
    await a.app.start();
    await b.app.start();
    shared.model.respondWith((req) =>
      req.messages.some((m) => m.content === 'first job') ? { hang: true } : { text: 'Second job done.' },
    );
    const first = a.adapter.thread('C024BE91L', '1700000000.000300');
    const second = a.adapter.thread('C024BE91L', '1700000000.000400');
    await a.adapter.say(first, 'first job', { userId: 'U024BE7LH' });
    await waitFor(() => shared.model.hanging() === 1, 10_000, 'the first job to occupy A');
    await a.adapter.say(second, 'second job', { userId: 'U024BE7LH' });
    await waitFor(
      () => [...a.adapter.posts, ...b.adapter.posts].some((p) => p.text === 'Second job done.'),
      10_000,
      'the second job answered',
    );
    const conversationId = await shared.store.conversations.ensure(second);
    expect((await shared.store.tasks.list(conversationId)).map((t) => t.status)).toEqual(['completed']);
    expect(a.app.coordinator.isExecuting(await shared.store.conversations.ensure(first))).toBe(true);
  });
});

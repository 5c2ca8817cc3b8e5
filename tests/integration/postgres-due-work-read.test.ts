import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closePostgres, openPostgres, type PgDb } from '../../src/db/pg-client.js';
import { conversations, runs, tasks } from '../../src/db/pg-schema.js';
import { createPgTaskStore } from '../../src/store/postgres/pg-task-store.js';
import { DUE_WORK_SQL } from '../../src/store/postgres/pg-task-statements.js';
import { FakeClock } from '../fakes/fake-clock.js';
import { useTestDatabase } from '../support/test-database.js';

/*
 * The pump's due-work read (issue 40, ninth round): its work must not grow with the runs that ended since the last
 * vacuum. The partial index of active runs keeps an entry for each of them until then; the read once scanned that
 * whole index for every ready task (a bitmap scan, which never learns an entry is dead), so a busy process paid
 * more at every pump the more it had answered.
 */

const database = useTestDatabase();
let db: PgDb;
const clock = new FakeClock();
const READY = 8;
const BUSY = 4;
let ended = 0;

const key = (name: string) => `slack:T1:C1:${name}`;

async function addConversations(names: string[]): Promise<void> {
  await db.insert(conversations).values(
    names.map((name) => ({
      id: key(name),
      platform: 'slack',
      workspace: 'T1',
      channel: 'C1',
      thread: name,
      createdAt: 1,
      updatedAt: 1,
    })),
  );
}

async function addTasks(names: string[]): Promise<void> {
  await db.insert(tasks).values(
    names.map((name, i) => ({
      conversationId: key(name),
      title: `task ${name}`,
      description: `task ${name}`,
      sequence: 1,
      createdBy: 'user' as const,
      notBefore: i,
      createdAt: 1,
      updatedAt: 1,
    })),
  );
}

/** A running run in each of `names`' conversations. */
async function startRuns(names: string[]): Promise<void> {
  await db.insert(runs).values(
    names.map((name) => ({
      id: `run-${name}`,
      conversationId: key(name),
      status: 'running' as const,
      owner: 'p1',
      leaseUntil: 9e15,
      startedAt: 1,
      updatedAt: 1,
    })),
  );
}

/** `count` runs that ran and ended, each in a conversation of its own, as a process that answers leaves them. */
async function endRuns(count: number): Promise<void> {
  const names = Array.from({ length: count }, () => `ended-${ended++}`);
  await addConversations(names);
  await startRuns(names);
  await db.execute(`update runs set status = 'completed' where id like 'run-ended-%' and status = 'running'`);
}

/** The store's one-statement read of due work (optional on the task service: the PostgreSQL store has it). */
function dueWork(): NonNullable<ReturnType<typeof createPgTaskStore>['dueWork']> {
  const read = createPgTaskStore(db, clock).dueWork;
  if (!read) throw new Error('the PostgreSQL task store has no dueWork');
  return read;
}

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  Alias?: string;
  'Index Cond'?: string;
  'Shared Hit Blocks': number;
  Plans?: PlanNode[];
}

/** The read's plan as the pooled connection runs it (prepared, past warm-up), with the buffers it touched. */
async function planOfRead(): Promise<PlanNode> {
  const client = db.$client;
  await client.query(`prepare due_read(bigint, text, text[], integer) as ${DUE_WORK_SQL}`);
  const args = `(${clock.now()}, null, '{}', 8)`;
  // Past PostgreSQL's five custom plans, so the plan measured is the one it keeps.
  for (let i = 0; i < 6; i++) await client.query(`execute due_read${args}`);
  const { rows } = await client.query<{ 'QUERY PLAN': { Plan: PlanNode }[] }>(
    `explain (analyze, buffers, format json) execute due_read${args}`,
  );
  await client.query('deallocate due_read');
  return rows[0]!['QUERY PLAN'][0]!.Plan;
}

/** The plan's reads of `runs` for "an active run in the task's conversation" (aliases r, r_1 …). */
function activeRunChecks(node: PlanNode): PlanNode[] {
  const own = node['Relation Name'] === 'runs' && /^r(_\d+)?$/.test(node.Alias ?? '') ? [node] : [];
  return [...own, ...(node.Plans ?? []).flatMap(activeRunChecks)];
}

function expectLookupsByConversation(plan: PlanNode): void {
  const checks = activeRunChecks(plan);
  expect(checks.length).toBeGreaterThan(0);
  for (const check of checks) {
    expect(check['Node Type']).toMatch(/^Index (Only )?Scan$/);
    // The task's own conversation: its column, or the asked conversation ($2) the task was matched on.
    expect(check['Index Cond']).toMatch(/conversation_id = (t(_\d+)?\.conversation_id|\(\$2\)::text)/);
  }
}

beforeAll(async () => {
  if (database.skip) return;
  db = await openPostgres(database.url, { poolSize: 1 });
  // What the read must cope with between two vacuums; autovacuum would tidy it away mid-test.
  await db.execute('alter table runs set (autovacuum_enabled = off)');
  await db.execute('alter table tasks set (autovacuum_enabled = off)');
  const ready = Array.from({ length: READY }, (_, i) => `ready-${i}`);
  const busy = Array.from({ length: BUSY }, (_, i) => `busy-${i}`);
  await addConversations([...ready, ...busy]);
  await addTasks([...ready, ...busy]);
  await startRuns(busy);
  await endRuns(300);
  await db.execute('analyze');
});
afterAll(async () => {
  if (db) await closePostgres(db);
});

describe.skipIf(database.skip)("the pump's due-work read on PostgreSQL", () => {
  it('finds the ready conversations and leaves out those with an active run', async () => {
    const due = await dueWork()(20, new Set(), key('busy-0'));
    expect(due.questionsDue).toBe(false);
    expect(due.ready).toEqual(Array.from({ length: READY }, (_, i) => key(`ready-${i}`)));
    const preferred = await dueWork()(3, new Set([key('ready-1')]), key('ready-5'));
    expect(preferred.ready).toEqual([key('ready-5'), key('ready-0'), key('ready-2')]);
  });

  it("looks each ready task's conversation up in the index of active runs, however many runs ended since the last vacuum", async () => {
    const before = await planOfRead();
    expectLookupsByConversation(before);
    await endRuns(600);
    const after = await planOfRead();
    expectLookupsByConversation(after);
    // A lookup per ready task reads the same few pages however many runs ended; a scan of the index's entries
    // (a bitmap scan never learns an entry is dead) read them all again for every ready task.
    expect(after['Shared Hit Blocks'] - before['Shared Hit Blocks']).toBeLessThan(READY);
    expect((await dueWork()(20, new Set(), undefined)).ready).toHaveLength(READY);
  });

  it('reads as much for a backlog of 2 000 waiting conversations as for a few, each at its earliest ready task', async () => {
    const before = await planOfRead();
    const backlog = Array.from({ length: 2_000 }, (_, i) => `backlog-${i}`);
    await addConversations(backlog);
    await db.insert(tasks).values(
      backlog.flatMap((name, i) => [
        {
          conversationId: key(name),
          title: `first ${name}`,
          description: 'first',
          sequence: 1,
          createdBy: 'user' as const,
          notBefore: 1_000 + i,
          createdAt: 1,
          updatedAt: 1,
        },
        // Every tenth has a second to-do due earlier than anything else: the conversation counts from it.
        ...(i % 10 === 0
          ? [
              {
                conversationId: key(name),
                title: `second ${name}`,
                description: 'second',
                sequence: 2,
                createdBy: 'user' as const,
                notBefore: -10_000 + i,
                createdAt: 1,
                updatedAt: 1,
              },
            ]
          : []),
      ]),
    );
    await db.execute('analyze');
    const after = await planOfRead();
    // The read stops at the limit: the backlog adds a few pages of the index, not a look at each waiting task.
    expect(after['Shared Hit Blocks']).toBeLessThan(before['Shared Hit Blocks'] + 40);
    const due = await dueWork()(5, new Set([key('backlog-10')]), undefined);
    expect(due.ready).toEqual([
      key('backlog-0'),
      key('backlog-20'),
      key('backlog-30'),
      key('backlog-40'),
      key('backlog-50'),
    ]);
    // The store's other read of ready conversations (when no slot opened) answers the same.
    expect(await createPgTaskStore(db, clock).findReadyConversations(5, new Set([key('backlog-10')]))).toEqual(
      due.ready,
    );
    const all = await dueWork()(2_100, new Set(), undefined);
    expect(new Set(all.ready).size).toBe(all.ready.length);
    expect(all.ready).toHaveLength(2_000 + READY);
    expect(all.ready.slice(200, 200 + READY)).toEqual(Array.from({ length: READY }, (_, i) => key(`ready-${i}`)));
  });
});

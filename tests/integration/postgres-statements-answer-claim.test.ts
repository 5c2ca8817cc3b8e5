import { sql } from 'drizzle-orm';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closePostgres, openPostgres, type PgDb } from '../../src/db/pg-client.js';
import { RunFencedError } from '../../src/run-records/run-fence.js';
import { createOutbox, type Outbox } from '../../src/outbox/outbox.js';
import { silentLogger } from '../../src/logger.js';
import { fenceRunWrites } from '../../src/runs/runtime/fenced-run-writes.js';
import { createPostgresStore, type PostgresStore } from '../../src/composition/pg-store.js';
import { FakeClock } from '../fakes/fake-clock.js';
import { MemoryAdapter } from '../fakes/memory-adapter.js';
import { waitFor } from '../fakes/wait-for.js';
import { statementLog } from '../support/statement-log.js';
import { useTestDatabase } from '../support/test-database.js';
import { runPrivacy } from '../../src/agent/run-privacy.js';
import { writeAnswerStep } from '../../src/runs/agent/answer-write.js';
import type { AnswerRows } from '../../src/store/answer-rows.js';

/*
 * Issue 40, eleventh round: the answer's write claims its conversation's outbox rows in its own statement, so the
 * poster's turn starts on that claim and sends no `claim` of its own. What a claim guarantees stays: another process's
 * live claim is not taken (the answer waits for it), a lapsed one is, and a write the fence refuses claims nothing.
 */

const database = useTestDatabase();
const LEASE_MS = 30_000;
const clock = new FakeClock(1_000);
let db: PgDb;
let store: PostgresStore;
const log = statementLog();

beforeAll(async () => {
  if (database.skip) return;
  db = await openPostgres(database.url, { poolSize: 2 });
  log.watch(db.$client);
  store = createPostgresStore(db, clock, { ownership: { processId: 'p1', leaseMs: LEASE_MS } });
});
afterAll(async () => {
  if (db) await closePostgres(db);
});

let seq = 0;

/** Waits until every pooled connection is idle and none is asked for: whatever a worker sends later is sent by then. */
const poolIdle = () =>
  waitFor(() => db.$client.waitingCount === 0 && db.$client.idleCount === db.$client.totalCount, 5_000, 'an idle pool');

/** A started outbox posting to a new adapter, and a run on a new thread with its fenced writes. */
async function answering() {
  const adapter = new MemoryAdapter();
  const outbox: Outbox = createOutbox({
    store,
    clock,
    logger: silentLogger(),
    adapters: new Map([['memory', adapter]]),
    refOf: (id) => store.conversations.refOf(id),
    onQuestionPosted: async () => undefined,
  });
  await outbox.start();
  await outbox.idle();
  const ref = { platform: 'memory', workspace: 'W1', channel: 'C1', thread: `A${++seq}` };
  const conversationId = await store.conversations.ensure(ref);
  const run = await store.runs.create(conversationId, null);
  const writes = fenceRunWrites(
    await store.runs.fence(run.id),
    { posts: outbox, transcript: store.transcript, runs: store.runs },
    () => undefined,
  );
  const answer = (text: string) =>
    writeAnswerStep(writes.posts, {
      conversationId,
      runId: run.id,
      text,
      toolCalls: [],
      usage: undefined,
      budget: undefined,
      privacy: runPrivacy('U1', false),
      stream: undefined,
    });
  /** The answer written and posted, with the statements that took: its first row's id and what was sent. */
  const posted = async (text: string) => {
    let id = 0;
    const statements = await log.of(async () => {
      const { ticket } = await answer(text);
      id = ticket[0]!;
      expect(await outbox.delivered(ticket)).not.toBeNull();
      await outbox.idle();
      await poolIdle();
    });
    return { id, statements };
  };
  const texts = () => adapter.textsIn(ref);
  await poolIdle();
  return { conversationId, run, outbox, answer, posted, texts };
}

/** A model answer's rows for the store's write: `pieces` to post, no charge. */
const answerRows = (conversationId: string, pieces: AnswerRows['pieces']): AnswerRows => ({
  conversationId,
  content: 'The answer.',
  toolCalls: [],
  privateTo: null,
  purpose: 'answer',
  pieces,
  charge: null,
});

/** The first words of each statement. */
const heads = (statements: string[]) => statements.map((s) => s.split(' ').slice(0, 4).join(' '));
/** A statement of the poster's own claim (pg-outbox-first-row.ts): any upsert of a claim but the answer's write. */
const claimsOfTheirOwn = (statements: string[]) =>
  statements.filter((s) => s.includes('insert into outbox_claims') && !s.startsWith('with run as'));
const claimOf = async (conversationId: string) =>
  (await db.execute(sql`select owner, claim_until from outbox_claims where conversation_id = ${conversationId}`)).rows;
const attemptsOf = async (id: number) =>
  (await db.execute(sql`select attempts, status from outbox where id = ${id}`)).rows[0];

describe.skipIf(database.skip)("the answer's write claims its conversation's outbox (issue 40)", () => {
  it('sends the answer and no claim of the poster: the write, the post, the release', async () => {
    const { posted, outbox, texts } = await answering();
    const { id, statements } = await posted('The answer.');
    expect(statements[0]).toMatch(
      /^with run as \(update runs .* won as \(insert into outbox_claims .* posts as \(insert/,
    );
    // No claim, no read of the row, no count of its try (the write inserted it counted): the post, the release.
    expect(heads(statements.slice(1))).toEqual(['update "outbox" set "status"', 'delete from "outbox_claims" where']);
    expect(await attemptsOf(id), 'tried once, counted once').toEqual({ attempts: 1, status: 'posted' });
    expect(claimsOfTheirOwn(statements)).toEqual([]);
    expect(texts()).toEqual(['The answer.']);
    await outbox.stop(1_000);
  });

  it("hands the turn the answer's first row as `nextPending` reads it, its first try counted", async () => {
    const { conversationId, run, outbox } = await answering();
    const written = await store.outbox.addFencedAnswerClaiming!(
      answerRows(conversationId, [{ text: 'The answer,' }, { text: 'in two pieces.', mentionUserId: 'U1' }]),
      await store.runs.fence(run.id),
    );
    if (written?.claim.kind !== 'claimed') throw new Error('the claim was not won');
    expect(written.postIds).toHaveLength(2);
    expect(written.claim.claim.first).toEqual({
      ...(await store.outbox.nextPending(conversationId)),
      attempts: 0,
      attemptCounted: true,
    });
    expect(await attemptsOf(written.postIds[1]!), 'only the first row counted').toEqual({
      attempts: 0,
      status: 'pending',
    });
    expect(await claimOf(conversationId)).toEqual([{ owner: 'p1', claim_until: String(clock.now() + LEASE_MS) }]);
    await written.claim.claim.release();
    await outbox.stop(1_000);
  });

  it('posts the rows pending before the answer first: the turn reads the first of them itself', async () => {
    const { conversationId, posted, outbox, texts } = await answering();
    const [before] = await store.outbox.add(conversationId, null, 'update', [{ text: 'before' }]);
    const { id, statements } = await posted('The answer.');
    expect(texts()).toEqual(['before', 'The answer.']);
    expect(await attemptsOf(before!)).toEqual({ attempts: 1, status: 'posted' });
    expect(await attemptsOf(id)).toEqual({ attempts: 1, status: 'posted' });
    // Claimed by the write; each row then read, counted and posted, the release looking for rows after each.
    const eachRow = [
      'select "id", "conversation_id", "run_id",',
      'update "outbox" set "attempts"',
      'update "outbox" set "status"',
      'delete from "outbox_claims" where',
    ];
    expect(heads(statements)).toEqual(['with run as (update', ...eachRow, ...eachRow]);
    expect(claimsOfTheirOwn(statements)).toEqual([]);
    await outbox.stop(1_000);
  });

  it("does not hand the turn a row the claim's last holder posted while the write waited for its claim", async () => {
    const { conversationId, run, outbox } = await answering();
    const [posted] = await store.outbox.add(conversationId, null, 'update', [{ text: 'posted by p2' }]);
    const p2 = new pg.Client({ connectionString: database.url });
    await p2.connect();
    try {
      // p2 holds the claim and, in one transaction, marks its row posted and gives the claim up (a streamed mark).
      await p2.query('insert into outbox_claims (conversation_id, owner, claim_until) values ($1, $2, $3)', [
        conversationId,
        'p2',
        clock.now() + LEASE_MS,
      ]);
      await p2.query('begin');
      await p2.query("update outbox set status = 'posted', platform_message_id = 'P2' where id = $1", [posted]);
      await p2.query('delete from outbox_claims where conversation_id = $1', [conversationId]);
      // The write starts meanwhile (its snapshot sees the row pending) and waits for p2's lock on the claim.
      const writing = store.outbox.addFencedAnswerClaiming!(
        answerRows(conversationId, [{ text: 'The answer.' }]),
        await store.runs.fence(run.id),
      );
      await waitFor(
        async () =>
          (
            await db.execute(
              sql`select 1 from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`,
            )
          ).rows.length > 0,
        5_000,
        'the write to wait for the claim',
      );
      await p2.query('commit');
      const written = await writing;
      expect(written?.claim.kind).toBe('claimed');
      if (written?.claim.kind !== 'claimed') return;
      // Not the row p2 posted: the turn reads the first pending row itself, after the write committed.
      expect(written.claim.claim.first).toBeUndefined();
      expect(await store.outbox.nextPending(conversationId)).toMatchObject({ id: written.postIds[0] });
      await written.claim.claim.release();
    } finally {
      await p2.end();
      await outbox.stop(1_000);
    }
  });

  it("takes another process's lapsed claim over in the write", async () => {
    const { conversationId, posted, outbox, texts } = await answering();
    await db.execute(
      sql`insert into outbox_claims (conversation_id, owner, claim_until) values (${conversationId}, 'p2', ${clock.now() - 1})`,
    );
    const { statements } = await posted('The answer.');
    expect(claimsOfTheirOwn(statements)).toEqual([]);
    expect(texts()).toEqual(['The answer.']);
    expect(await claimOf(conversationId), 'taken over, then given up drained').toEqual([]);
    await outbox.stop(1_000);
  });

  it("leaves another process's live claim alone: the answer waits, counted by nobody, and is posted once it is given up", async () => {
    const { conversationId, answer, outbox, texts } = await answering();
    const until = clock.now() + LEASE_MS;
    await db.execute(
      sql`insert into outbox_claims (conversation_id, owner, claim_until) values (${conversationId}, 'p2', ${until})`,
    );
    let id = 0;
    const statements = await log.of(async () => {
      id = (await answer('The answer.')).ticket[0]!;
      await outbox.idle();
      await poolIdle();
    });
    expect(heads(statements), 'the write alone: no claim, no post').toEqual(['with run as (update']);
    expect(texts()).toEqual([]);
    expect(await attemptsOf(id)).toEqual({ attempts: 0, status: 'pending' });
    expect(await claimOf(conversationId)).toEqual([{ owner: 'p2', claim_until: String(until) }]);
    // The other process gives it up without posting (it died, say): the next look claims it and posts the answer.
    await db.execute(sql`delete from outbox_claims where conversation_id = ${conversationId}`);
    clock.advance(1_000);
    await waitFor(() => texts().length === 1, 5_000, 'the answer posted');
    await outbox.idle();
    expect(texts()).toEqual(['The answer.']);
    expect(await attemptsOf(id)).toEqual({ attempts: 1, status: 'posted' });
    await outbox.stop(1_000);
  });

  it('claims nothing when the fence does not hold, and writes nothing', async () => {
    const { conversationId, run, answer, outbox } = await answering();
    await db.execute(sql`update runs set owner = 'p2', lease_generation = lease_generation + 1 where id = ${run.id}`);
    await expect(answer('a stale answer')).rejects.toBeInstanceOf(RunFencedError);
    await outbox.idle();
    expect(await claimOf(conversationId)).toEqual([]);
    const rows = await db.execute(sql`select count(*)::int as n from outbox where conversation_id = ${conversationId}`);
    expect(rows.rows).toEqual([{ n: 0 }]);
    await outbox.stop(1_000);
  });
});

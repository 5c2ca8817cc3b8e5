import { sql } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { closePostgres, openPostgres, type PgDb } from '../../src/db/pg-client.js';
import { createPostgresStore, isPostgresStore, type PostgresStore } from '../../src/composition/pg-store.js';
import type { MemoryVisibility, StoredContextRead } from '../../src/memory/memory-store.js';
import { MATCHED_MEMORIES, NEWEST_MEMORIES } from '../../src/memory/memory-choice.js';
import { FakeClock } from '../fakes/fake-clock.js';
import { waitFor } from '../fakes/wait-for.js';
import { useStoreKinds } from '../support/store-kinds.js';
import { statementLog } from '../support/statement-log.js';
import { useTestDatabase } from '../support/test-database.js';
import { startHarness, type Harness } from './harness.js';

/*
 * Issue 40, sixth round: a run's request context on PostgreSQL is ONE statement (MemoryStore.readContext), not the
 * conversation row, the two summaries, the transcript window, two memory reads and the skill pins one by one. These
 * hold that it reads exactly what those reads read, and that a run sends it instead of them.
 */

const database = useTestDatabase();
const stores = useStoreKinds();
let db: PgDb;
let store: PostgresStore;
const log = statementLog();
const { sent } = log;

beforeAll(async () => {
  if (database.skip) return;
  db = await openPostgres(database.url, { poolSize: 2 });
  log.watch(db.$client);
  store = createPostgresStore(db, new FakeClock(1_000));
});
afterAll(async () => {
  if (db) await closePostgres(db);
});

let seq = 0;
const ANA = 'memory:U0ANA';
const BOB = 'memory:U0BOB';

/** A conversation with every table the context reads filled, each row with every column set (and some with none). */
async function filledConversation(): Promise<{ conversationId: string; visibility: MemoryVisibility }> {
  const ref = { platform: 'memory', workspace: `W${++seq}`, channel: 'C1', thread: `T${seq}` };
  const conversationId = await store.conversations.ensure(ref, 'Europe/Berlin');
  const visibility = { person: ANA, channel: `memory:${ref.workspace}:C1`, workspace: `memory:${ref.workspace}` };
  const t = store.transcript;
  await t.append({
    conversationId,
    runId: 'r1',
    role: 'user',
    content: 'review the quarterly numbers',
    authorId: 'U0ANA',
    platformMessageId: '1700000000.000100',
    images: [{ name: 'chart.png', url: 'data:image/png;base64,AAAA' }],
  });
  await t.append({
    conversationId,
    runId: 'r1',
    role: 'assistant',
    content: null,
    toolCalls: [{ id: 'call_1', name: 'recall', arguments: '{"query":"numbers"}' }],
    privateTo: 'U0ANA',
  });
  await t.append({
    conversationId,
    runId: 'r1',
    role: 'tool',
    content: '{"ok":true}',
    toolCallId: 'call_1',
    privateTo: 'U0ANA',
  });
  await t.append({ conversationId, runId: null, role: 'system', content: null });
  await t.append({ conversationId, runId: 'r2', role: 'assistant', content: 'Bob only', privateTo: 'U0BOB' });
  await store.memory.saveSummary(conversationId, 0, 'shared summary', 2);
  await store.memory.savePrivateSummary(conversationId, 'U0ANA', 0, "Ana's own summary", 3);
  await store.memory.savePrivateSummary(conversationId, 'U0BOB', 0, "Bob's own summary", 3);
  const remember = (scope: 'me' | 'channel' | 'workspace', subject: string, text: string) =>
    store.memory.remember({ scope, subject, text, createdBy: ANA });
  await remember('me', ANA, 'Ana reviews quarterly numbers on Mondays');
  await remember('me', BOB, 'Bob reviews quarterly numbers on Fridays');
  await remember('channel', visibility.channel, 'the quarterly numbers live in the finance sheet');
  await remember('channel', 'memory:W0:C9', 'another channel: numbers elsewhere');
  await remember('workspace', visibility.workspace, 'the company reviews numbers every quarter');
  await remember('workspace', 'memory:W0', 'another workspace reviews numbers too');
  await remember('channel', visibility.channel, 'lunch is at noon');
  await store.skills.save({ name: 'triage', pin: 'sha256:abc', enabledBy: ANA, enabledAt: 1_234 });
  return { conversationId, visibility };
}

/** What the separate reads of today give for `read` (the PostgreSQL stores' own reads). */
async function separately(read: StoredContextRead) {
  const m = read.memories;
  return {
    summary: await store.memory.summary(read.conversationId),
    privateSummary: read.owner === null ? null : await store.memory.privateSummary(read.conversationId, read.owner),
    window: await store.transcript.recent(read.conversationId, read.historyRows),
    matched: m ? await store.memory.search(m.visibility, m.query, m.matched) : [],
    newest: m ? await store.memory.newest(m.visibility, m.newest) : [],
    ...(read.conversation ? { conversation: await store.conversations.get(read.conversationId) } : {}),
    ...(read.pins ? { pins: await store.skills.list() } : {}),
  };
}

/** The statements `work` sends. */
const statementsOf = (work: () => Promise<unknown>) => log.of(work);

const memories = (visibility: MemoryVisibility, query: string) => ({
  visibility,
  query,
  matched: MATCHED_MEMORIES,
  newest: NEWEST_MEMORIES,
});

describe.skipIf(database.skip)("a run's context read in one statement on PostgreSQL (issue 40)", () => {
  it('reads exactly what the separate reads read, every column filled, in one statement', async () => {
    const { conversationId, visibility } = await filledConversation();
    const read: StoredContextRead = {
      conversationId,
      owner: 'U0ANA',
      historyRows: 400,
      memories: memories(visibility, 'How do we review the quarterly numbers?'),
      conversation: true,
      pins: true,
    };
    let got;
    const statements = await statementsOf(async () => {
      got = await store.memory.readContext!(read);
    });
    expect(statements).toHaveLength(1);
    const expected = await separately(read);
    expect(got).toEqual(expected);
    // What the fixture is for: each part holds rows, with their columns filled.
    expect(expected.window).toHaveLength(5);
    expect(expected.window[0]).toMatchObject({
      images: [{ name: 'chart.png' }],
      platformMessageId: '1700000000.000100',
    });
    expect(expected.window[1]!.toolCalls).toEqual([{ id: 'call_1', name: 'recall', arguments: '{"query":"numbers"}' }]);
    expect(expected.conversation).toMatchObject({ timezone: 'Europe/Berlin', thread: `T${seq}` });
    expect(expected.privateSummary).toMatchObject({ owner: 'U0ANA', summary: "Ana's own summary" });
    expect(expected.matched.map((m) => m.text).sort()).toEqual([
      'Ana reviews quarterly numbers on Mondays',
      'the company reviews numbers every quarter',
      'the quarterly numbers live in the finance sheet',
    ]);
    expect(expected.newest).toHaveLength(4);
    expect(expected.pins).toEqual([{ name: 'triage', pin: 'sha256:abc', enabledBy: ANA, enabledAt: 1_234 }]);
  });

  it("reads another person's private summary never, and a person-less run no `me` memory; a window cut to its newest rows", async () => {
    const { conversationId, visibility } = await filledConversation();
    for (const read of [
      { owner: 'U0BOB', memories: memories({ ...visibility, person: BOB }, 'quarterly numbers'), historyRows: 2 },
      { owner: null, memories: memories({ ...visibility, person: null }, 'quarterly numbers'), historyRows: 3 },
      { owner: 'U0CAROL', memories: memories({ ...visibility, workspace: null }, 'numbers'), historyRows: 400 },
      {
        owner: 'U0ANA',
        memories: memories({ person: null, channel: visibility.channel, workspace: null }, 'the'),
        historyRows: 1,
      },
      { owner: 'U0ANA', memories: null, historyRows: 400 },
    ]) {
      const full: StoredContextRead = { conversationId, conversation: false, pins: false, ...read };
      const got = await store.memory.readContext!(full);
      expect(got, JSON.stringify(read)).toEqual(await separately(full));
      const texts = [...got.matched, ...got.newest].map((m) => m.text);
      if (read.memories?.visibility.person !== ANA) expect(texts.some((t) => t.startsWith('Ana'))).toBe(false);
      expect(JSON.stringify(got.privateSummary ?? '')).not.toContain(read.owner === 'U0BOB' ? 'Ana' : 'Bob');
    }
  });

  it('reads an empty conversation (no row, no summary, no transcript, no memory, no pin) as the separate reads do', async () => {
    await db.execute(sql`delete from skill_pins`);
    const read: StoredContextRead = {
      conversationId: 'memory:W404:C1:none',
      owner: 'U0ANA',
      historyRows: 400,
      memories: memories({ person: 'memory:U0NOBODY', channel: 'memory:W404:C1', workspace: 'memory:W404' }, 'x y z'),
      conversation: true,
      pins: true,
    };
    const got = await store.memory.readContext!(read);
    expect(got).toEqual(await separately(read));
    expect(got).toEqual({
      summary: null,
      privateSummary: null,
      window: [],
      matched: [],
      newest: [],
      conversation: null,
      pins: [],
    });
  });
});

describe.skipIf(!stores.kinds.includes('postgres'))("a run's reads on PostgreSQL, end to end", () => {
  let h: Harness | undefined;
  afterEach(async () => h?.close());

  it("reads the run's conversation row, summaries, transcript window, memories and skill pins in one statement before its first request, and each later request's context afresh in one", async () => {
    h = await startHarness({ ...(await stores.env('postgres')) });
    const app = h.app;
    if (!isPostgresStore(app.store)) throw new Error('the harness did not start on PostgreSQL');
    log.watch(app.store.db.$client);
    const where = h.adapter.thread('C1', 'T1');
    await app.store.memory.remember({
      scope: 'channel',
      subject: 'memory:W1:C1',
      text: 'deploys go out on Tuesdays',
      createdBy: 'memory:U1',
    });
    // The statements sent before each model request (each since the one before).
    const before: string[][] = [];
    h.model.respondWith(() => {
      before.push(sent.splice(0));
      return before.length === 1
        ? { text: 'Checking.', toolCalls: [{ id: 'call_u1', name: 'send_update', arguments: { text: 'looking' } }] }
        : { text: 'Tuesdays.' };
    });
    sent.length = 0;
    await h.adapter.say(where, 'when do deploys go out?', { userId: 'U1' });
    await waitFor(() => before.length >= 2, 10_000, 'the run asked the model twice');
    const separateReads = (statements: string[]) =>
      statements.filter(
        (s) =>
          /^select .* from "(conversations|conversation_summaries|private_summaries|messages|memories|skill_pins)" /.test(
            s,
          ) && !s.includes('for no key update'),
      );
    const combined = (statements: string[]) => statements.filter((s) => s.includes('as private_summary'));
    for (const [step, statements] of before.entries()) {
      expect(separateReads(statements), `the separate reads before request ${step + 1}`).toEqual([]);
      expect(combined(statements), `the one read before request ${step + 1}`).toHaveLength(1);
    }
    const [first, second] = h.model.requests.slice(-2).map((r) => JSON.stringify(r.messages));
    expect(first).toContain('deploys go out on Tuesdays');
    expect(first).toContain('when do deploys go out?');
    // The second request is read afresh: it holds the first step and its tool's result.
    expect(second).toContain('Checking.');
    expect(second).toContain('call_u1');
  });
});

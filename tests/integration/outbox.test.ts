import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type {
  AdapterCapabilities,
  AnswerStream,
  OutboundMessage,
  PostedMessage,
  UnrecordedPreview,
} from '../../src/chat/chat-adapter.js';
import type { ConversationRef } from '../../src/chat/conversation-ref.js';
import { openStore } from '../../src/composition/open-store.js';
import { isPostgresStore } from '../../src/composition/pg-store.js';
import { isSqliteStore } from '../../src/composition/sqlite-store.js';
import type { ErrandStore as Store } from '../../src/composition/errand-store.js';
import { useStoreKinds, type StoreKind } from '../support/store-kinds.js';
import { TargetGoneError } from '../../src/errors.js';
import { silentLogger } from '../../src/logger.js';
import { createOutbox, type Outbox } from '../../src/outbox/outbox.js';
import { FakeClock } from '../fakes/fake-clock.js';
import { MemoryAdapter } from '../fakes/memory-adapter.js';
import { waitFor } from '../fakes/wait-for.js';

/** The in-memory adapter, with scripted failures and a record of the idempotency keys it was sent. */
class ScriptedAdapter extends MemoryAdapter {
  failures: unknown[] = [];
  keys: (string | undefined)[] = [];
  /** What findPosted answers (key → platform id); undefined: the adapter has no lookup. */
  known: Map<string, string> | undefined;
  lookups = 0;

  override async postMessage(conversation: ConversationRef, message: OutboundMessage): Promise<PostedMessage> {
    this.keys.push(message.idempotencyKey);
    const failure = this.failures.shift();
    if (failure) throw failure;
    this.writes.push(`post ${message.text}`);
    return super.postMessage(conversation, message);
  }

  /** What findUnrecordedPreview answers, and what it was asked. */
  unrecorded: string | null = null;
  probes: UnrecordedPreview[] = [];
  deleted: string[] = [];

  override readonly capabilities: AdapterCapabilities = {
    previewLookup: {
      findUnrecordedPreview: async (_conversation: ConversationRef, probe: UnrecordedPreview) => {
        this.probes.push(probe);
        return this.unrecorded;
      },
    },
    delete: {
      deleteMessage: async (_conversation: ConversationRef, messageId: string) => {
        this.deleted.push(messageId);
        return true;
      },
    },
    postedLookup: {
      findPosted: async (_conversation: ConversationRef, keys: readonly string[]) => {
        this.lookups++;
        return new Map([...(this.known ?? new Map<string, string>())].filter(([k]) => keys.includes(k)));
      },
    },
  };

  /** Every write in the order the platform got it: `post <text>`, `edit <id> <text>`, `ephemeral <user> <text>`. */
  writes: string[] = [];

  override async editMessage(
    conversation: ConversationRef,
    messageId: string,
    message: OutboundMessage,
  ): Promise<void> {
    this.writes.push(`edit ${messageId} ${message.text}`);
    return super.editMessage(conversation, messageId, message);
  }

  override async postEphemeral(conversation: ConversationRef, userId: string, text: string): Promise<void> {
    this.writes.push(`ephemeral ${userId} ${text}`);
    return super.postEphemeral(conversation, userId, text);
  }
}

const ref: ConversationRef = { platform: 'memory', workspace: 'W1', channel: 'C1', thread: 't1' };
let dir: string;
const stores = useStoreKinds();
let databaseUrl: string | undefined;
/** Every store opened by a test (one per simulated process), closed after it. */
const opened: Store[] = [];
let clock: FakeClock;
let adapter: ScriptedAdapter;
let conversationId: string;
const questions: [string, string][] = [];

async function makeOutbox(): Promise<Outbox> {
  const store = await openStore({ DATABASE_PATH: join(dir, 'errand.db'), DATABASE_URL: databaseUrl }, clock);
  opened.push(store);
  const { conversations } = store;
  conversationId = await conversations.ensure(ref);
  return createOutbox({
    store,
    clock,
    logger: silentLogger(),
    adapters: new Map([['memory', adapter]]),
    refOf: (id) => conversations.refOf(id),
    onQuestionPosted: async (runId, id) => {
      questions.push([runId, id]);
    },
    backoffMs: () => 1000,
  });
}

/** Opens the database of `kind` for each test of the suite and closes what the test opened. */
function useDatabase(kind: StoreKind): void {
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'errand-outbox-it-'));
    databaseUrl = (await stores.env(kind)).DATABASE_URL;
    clock = new FakeClock();
    adapter = new ScriptedAdapter();
    questions.length = 0;
  });
  afterEach(async () => {
    for (const store of opened.splice(0)) await store.close();
    rmSync(dir, { recursive: true, force: true });
  });
}

/** Writes an outbox row whose payload no reader understands, straight into the database. */
async function insertUnreadable(store: Store, conversation: string): Promise<void> {
  if (isPostgresStore(store)) {
    await store.db.$client.query(
      `insert into outbox (conversation_id, purpose, payload, status, created_at) values ($1, 'answer', '{"nope":1}', 'pending', 0)`,
      [conversation],
    );
  } else if (isSqliteStore(store)) {
    store.db.$client
      .prepare(
        "insert into outbox (conversation_id, purpose, payload, status, created_at) values (?, 'answer', '{\"nope\":1}', 'pending', 0)",
      )
      .run(conversation);
  }
}

const texts = () => adapter.posts.map((p) => p.text);

/** The tries counted for outbox row `id`, read straight from the database. */
async function attemptsOf(store: Store, id: number): Promise<number> {
  if (isPostgresStore(store))
    return Number((await store.db.$client.query('select attempts from outbox where id = $1', [id])).rows[0].attempts);
  if (isSqliteStore(store))
    return (store.db.$client.prepare('select attempts from outbox where id = ?').get(id) as { attempts: number })
      .attempts;
  throw new Error('a store of neither kind');
}

describe.each(stores.kinds)('the outbox (%s)', (kind) => {
  useDatabase(kind);

  it('posts a long text as pieces within the platform limit, one row each, in order, with their platform ids', async () => {
    const outbox = await makeOutbox();
    await outbox.start();
    const text = Array.from({ length: 12 }, (_, i) => `Paragraph ${i + 1}: ${'words '.repeat(15).trim()}`).join('\n\n');
    const ticket = await outbox.atomically((tx) =>
      outbox.record(conversationId, null, { purpose: 'answer', text }, tx),
    );
    expect(ticket.length).toBeGreaterThan(2);
    const last = await outbox.delivered(ticket);
    expect(texts().join('\n\n')).toBe(text);
    expect(adapter.posts).toHaveLength(ticket.length);
    expect(texts().every((t) => t.length <= adapter.maxMessageLength)).toBe(true);
    expect(last).toBe(adapter.posts.at(-1)!.id);
    expect(adapter.keys).toEqual(ticket.map((id) => `e${id}`));
    expect(await Promise.all(ticket.map(async (id) => (await outbox.store.state(id))?.platformMessageId))).toEqual(
      adapter.posts.map((p) => p.id),
    );
  });

  it('delivers posts recorded one after another, each right when the previous one was posted', async () => {
    const outbox = await makeOutbox();
    await outbox.start();
    adapter.onPost = (post) => {
      if (post.text === 'Step 20.') void outbox.record(conversationId, null, { purpose: 'update', text: 'Step 21.' });
    };
    for (let i = 1; i <= 20; i++)
      await outbox.delivered(await outbox.record(conversationId, null, { purpose: 'update', text: `Step ${i}.` }));
    await waitFor(() => texts().includes('Step 21.'), 2000);
    expect(texts()).toEqual(Array.from({ length: 21 }, (_, i) => `Step ${i + 1}.`));
  });

  it('records a posted question on its run', async () => {
    const outbox = await makeOutbox();
    await outbox.start();
    const ticket = await outbox.record(conversationId, 'run-1', {
      purpose: 'question',
      text: 'Which one?',
      mentionUserId: 'U1',
      buttons: [{ actionId: 'a', label: 'A' }],
    });
    const id = await outbox.delivered(ticket);
    expect(questions).toEqual([['run-1', id]]);
    expect(adapter.posts[0]).toMatchObject({
      text: '<@U1> Which one?',
      mentionUserId: 'U1',
      buttons: [{ actionId: 'a', label: 'A' }],
    });
  });

  it('keeps a post that failed for a moment and tries again after the backoff, looking first whether it arrived', async () => {
    const outbox = await makeOutbox();
    await outbox.start();
    adapter.failures.push(new Error('socket hang up'));
    adapter.known = new Map();
    const ticket = await outbox.record(conversationId, null, { purpose: 'update', text: 'Working on it.' });
    const done = outbox.delivered(ticket);
    await waitFor(() => adapter.keys.length === 1);
    expect((await outbox.store.state(ticket[0]!))?.status).toBe('pending');
    clock.advance(1000);
    expect(await done).toBe(adapter.posts[0]!.id);
    expect(texts()).toEqual(['Working on it.']);
    expect(adapter.lookups).toBe(1);
  });

  it('tries a post that keeps failing five times in all, looking for it on the platform before each try after the first, then gives it up', async () => {
    const outbox = await makeOutbox();
    await outbox.start();
    adapter.known = new Map();
    for (let i = 0; i < 6; i++) adapter.failures.push(new Error('socket hang up'));
    const ticket = await outbox.record(conversationId, null, { purpose: 'update', text: 'Never there.' });
    const done = outbox.delivered(ticket);
    for (let tries = 1; tries <= 5; tries++) {
      await waitFor(() => adapter.keys.length === tries, 5_000, `try ${tries}`);
      await outbox.idle();
      expect(await attemptsOf(opened[0]!, ticket[0]!), `counted after try ${tries}`).toBe(tries);
      expect(adapter.lookups, `looked for before try ${tries}`).toBe(tries - 1);
      clock.advance(1000);
    }
    expect(await done).toBeNull();
    await outbox.idle();
    expect((await outbox.store.state(ticket[0]!))?.status).toBe('failed');
    clock.advance(60_000);
    await outbox.idle();
    expect(adapter.keys).toHaveLength(5);
    expect(adapter.lookups).toBe(4);
  });

  it('a claim whose process died before it tried its first row: the next start looks for the post, then posts it once', async () => {
    const first = await makeOutbox();
    const ticket = await first.record(conversationId, null, { purpose: 'update', text: 'Once.' });
    // The claim's statement (on PostgreSQL it counts the try it hands over), then the process dies before the try.
    const claimed = await first.store.claim(conversationId);
    if (claimed.kind !== 'claimed') throw new Error('the claim was not won');
    expect(await attemptsOf(opened[0]!, ticket[0]!)).toBe(kind === 'postgres' ? 1 : 0);
    await claimed.claim.release();
    adapter.known = new Map();
    const second = await makeOutbox();
    await second.start();
    expect(await second.delivered(ticket)).toBe(adapter.posts[0]!.id);
    expect(texts()).toEqual(['Once.']);
    // Counted but never tried, it is looked for first (not found: posted); counted on SQLite only when tried.
    expect(adapter.lookups).toBe(kind === 'postgres' ? 1 : 0);
    expect(adapter.keys).toEqual([`e${ticket[0]}`]);
  });

  it('adopts a post an earlier try already made instead of posting it again', async () => {
    const first = await makeOutbox();
    await first.start();
    adapter.failures.push(new Error('timeout'));
    const ticket = await first.record(conversationId, null, { purpose: 'update', text: 'Halfway.' });
    await waitFor(() => adapter.keys.length === 1);
    await first.stop(100);
    adapter.known = new Map([[`e${ticket[0]}`, 'already-there']]);

    const second = await makeOutbox();
    await second.start();
    const delivered = second.delivered(ticket);
    clock.advance(1000);
    expect(await delivered).toBe('already-there');
    expect(texts()).toEqual([]);
  });

  it('takes back a preview message whose post never got its answer: found on the platform by its key, then deleted', async () => {
    const first = await makeOutbox();
    const run = await opened[0]!.runs.create(conversationId, null);
    const [update] = await first.record(conversationId, run.id, { purpose: 'update', text: 'Halfway.' });
    await first.start();
    expect(await first.delivered([update!])).toBe(adapter.posts[0]!.id);
    const slot = await first.recordPreview(conversationId, run.id);
    expect(slot.key).toMatch(/^e\d+$/);
    await first.stop(100);

    adapter.unrecorded = 'orphan-1';
    const second = await makeOutbox();
    // As a restart or a takeover recovers it: the run is interrupted, then its preview is taken back.
    await second.atomically(async (tx) => {
      expect(await tx.runs.transition(run.id, ['running'], 'interrupted')).toBe(true);
      await second.retractPreviews(run.id, tx);
    });
    await second.start();
    await waitFor(() => adapter.deleted.length === 1, 10_000, 'the orphan to be deleted');
    expect(adapter.deleted).toEqual(['orphan-1']);
    expect(adapter.probes).toHaveLength(1);
    expect(adapter.probes[0]).toMatchObject({ key: slot.key, known: new Set([adapter.posts[0]!.id]) });
    expect(adapter.probes[0]!.since).toBeLessThanOrEqual(clock.now());
    await waitFor(
      async () => (await second.store.nextPending(conversationId)) === null,
      10_000,
      'the retraction to be settled',
    );
  });

  it('settles the retraction of a preview message the platform never got, with nothing deleted or posted', async () => {
    const first = await makeOutbox();
    const run = await opened[0]!.runs.create(conversationId, null);
    const slot = await first.recordPreview(conversationId, run.id);
    const id = Number(slot.key!.slice(1));
    await opened[0]!.outbox.retractPreviews(run.id, '(interrupted)');
    await first.start();
    await waitFor(
      async () => (await first.store.state(id))?.status === 'posted',
      10_000,
      'the retraction to be settled',
    );
    expect(adapter.probes).toHaveLength(1);
    expect(adapter.deleted).toEqual([]);
    expect(texts()).toEqual([]);
    expect(await first.store.state(id)).toMatchObject({ status: 'posted', platformMessageId: null });
  });

  it('a preview message whose post was answered is taken back by its recorded id, without a lookup', async () => {
    const first = await makeOutbox();
    const run = await opened[0]!.runs.create(conversationId, null);
    const slot = await first.recordPreview(conversationId, run.id);
    await slot.posted('preview-1');
    await opened[0]!.outbox.retractPreviews(run.id, '(interrupted)');
    await first.start();
    await waitFor(() => adapter.deleted.length === 1, 10_000, 'the preview to be deleted');
    expect(adapter.deleted).toEqual(['preview-1']);
    expect(adapter.probes).toEqual([]);
  });

  it('a stop while a streamed answer is being finished: the preview is taken back and the next start posts the answer once', async () => {
    const first = await makeOutbox();
    const run = await opened[0]!.runs.create(conversationId, null);
    const slot = await first.recordPreview(conversationId, run.id);
    await slot.posted('preview-1');
    // A preview whose finish is still under way at the stop, and which ends with the message ids after all (as a
    // stream that cannot cut its finish short would): that late answer must not count as the answer posted.
    let release: (ids: readonly string[]) => void = () => undefined;
    const ends: string[] = [];
    let finishing = false;
    const stream: AnswerStream = {
      append: () => undefined,
      finish: () => {
        finishing = true;
        return new Promise((resolve) => (release = resolve));
      },
      stop: async (how) => void ends.push(how ?? 'stopped'),
    };
    await first.start();
    await first.atomically((tx) =>
      first.record(conversationId, run.id, { purpose: 'answer', text: 'The answer.' }, tx, stream),
    );
    await waitFor(() => finishing, 10_000, 'the finish to begin');
    await first.stop(50);
    expect(ends).toEqual(['discard']);
    release(['preview-1']);
    await first.idle();
    // The run ended with its answer recorded (its wait for the post was cut by the stop).
    expect(await opened[0]!.runs.transition(run.id, ['running'], 'completed', { summary: 'The answer.' })).toBe(true);

    const second = await makeOutbox();
    await second.start();
    // Looked at once it has all happened (or, if it never does, after a while: the assertion then shows what did).
    await waitFor(
      () => texts().length === 1 && adapter.deleted.length === 1,
      5_000,
      'the answer posted and the preview taken back',
    ).catch(() => undefined);
    await second.idle();
    expect({ deleted: adapter.deleted, posted: texts() }).toEqual({ deleted: ['preview-1'], posted: ['The answer.'] });
  });

  it('on start posts what an earlier process left pending, before what is recorded after it', async () => {
    const first = await makeOutbox();
    const left = await first.record(conversationId, null, { purpose: 'answer', text: 'Left from before.' });
    await first.stop(100);
    const second = await makeOutbox();
    const fresh = await second.record(conversationId, null, { purpose: 'note', text: 'New work.' });
    await second.start();
    await second.delivered(fresh);
    expect(left).toHaveLength(1);
    expect(texts()).toEqual(['Left from before.', 'New work.']);
  });

  it('fails every pending post of a conversation whose place is gone, and says so to whoever waits', async () => {
    const outbox = await makeOutbox();
    adapter.failures.push(new TargetGoneError('archived', 'is_archived'));
    const a = await outbox.record(conversationId, null, { purpose: 'answer', text: 'One.' });
    const b = await outbox.record(conversationId, null, { purpose: 'answer', text: 'Two.' });
    await outbox.start();
    await expect(outbox.delivered(b)).rejects.toBeInstanceOf(TargetGoneError);
    expect(await Promise.all([...a, ...b].map(async (id) => (await outbox.store.state(id))?.status))).toEqual([
      'failed',
      'failed',
    ]);
    expect(texts()).toEqual([]);
  });

  it('forgets delivered posts after a week, never pending ones', async () => {
    const first = await makeOutbox();
    await first.start();
    const posted = await first.record(conversationId, null, { purpose: 'answer', text: 'Old news.' });
    await first.delivered(posted);
    await first.stop(100);
    const pending = await (
      await makeOutbox()
    ).record(conversationId, null, { purpose: 'answer', text: 'Still to say.' });
    clock.advance(8 * 24 * 60 * 60_000);
    adapter.postGate = new Promise(() => undefined);
    const later = await makeOutbox();
    await later.start();
    expect(await later.store.state(posted[0]!)).toBeNull();
    expect((await later.store.state(pending[0]!))?.status).toBe('pending');
  });

  it('delivers edits and private notices in order with the posts, also those a stopped process left pending', async () => {
    const first = await makeOutbox();
    await first.start();
    const buttons = [{ actionId: 'allow', label: 'Allow once' }];
    const approval = (await first.delivered(
      await first.record(conversationId, 'run-1', { purpose: 'approval', text: 'May I file it?', buttons }),
    ))!;
    await first.stop(100);
    // Recorded once the poster has stopped: nothing is delivered before the next start.
    await first.atomically((tx) =>
      first.recordEdit(conversationId, 'run-1', approval, 'May I file it?\n\n✅ Allowed once.', tx),
    );
    await first.recordEphemeral(conversationId, 'U2', 'Only the requester can decide.');
    const answer = await first.record(conversationId, 'run-1', { purpose: 'answer', text: 'Filed it.' });
    expect(adapter.writes).toEqual(['post May I file it?']);
    const second = await makeOutbox();
    await second.start();
    await second.delivered(answer);
    expect(adapter.writes).toEqual([
      'post May I file it?',
      `edit ${approval} May I file it?\n\n✅ Allowed once.`,
      'ephemeral U2 Only the requester can decide.',
      'post Filed it.',
    ]);
    expect(adapter.posts[0]).toMatchObject({ text: 'May I file it?\n\n✅ Allowed once.', buttons: [], edited: true });
    expect(adapter.ephemerals).toEqual([
      { conversation: 'memory:W1:C1:t1', userId: 'U2', text: 'Only the requester can decide.' },
    ]);
  });

  it('gives up an edit the platform refuses at once: the posts after it do not wait behind it', async () => {
    const outbox = await makeOutbox();
    await outbox.start();
    await outbox.recordEdit(conversationId, null, 'deleted-meanwhile', 'Too late.');
    const next = await outbox.record(conversationId, null, { purpose: 'note', text: 'Next.' });
    // The fake clock never moves: a row waiting for a retry would hold this note back for good.
    await outbox.delivered(next);
    expect(adapter.writes).toEqual(['edit deleted-meanwhile Too late.', 'post Next.']);
  });

  it('skips a row whose stored payload cannot be read', async () => {
    const outbox = await makeOutbox();
    await insertUnreadable(opened.at(-1)!, conversationId);
    const ok = await outbox.record(conversationId, null, { purpose: 'answer', text: 'Readable.' });
    await outbox.start();
    await outbox.delivered(ok);
    expect(texts()).toEqual(['Readable.']);
  });
});

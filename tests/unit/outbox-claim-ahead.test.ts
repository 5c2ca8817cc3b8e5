import { beforeEach, describe, expect, it } from 'vitest';
import type { ConversationRef } from '../../src/chat/conversation-ref.js';
import { openDatabase } from '../../src/db/client.js';
import { createSqliteStore } from '../../src/composition/sqlite-store.js';
import { silentLogger } from '../../src/logger.js';
import { OutboxPoster } from '../../src/outbox/outbox-poster.js';
import type { ClaimAttempt, OutboxStore } from '../../src/store/outbox-store.js';
import { FakeClock } from '../fakes/fake-clock.js';
import { MemoryAdapter } from '../fakes/memory-adapter.js';
import { waitFor } from '../fakes/wait-for.js';

/*
 * Issue 40, eleventh round: a worker started on a claim the answer's write took (OutboxPoster.claimAhead). The store
 * here is SQLite's (its claims in memory) with its `claim` counted: a worker started ahead sends none of its own.
 */

const ref: ConversationRef = { platform: 'memory', workspace: 'W', channel: 'C', thread: 'T1' };
let clock: FakeClock;
let adapter: MemoryAdapter;
let store: OutboxStore;
let poster: OutboxPoster;
let conversationId: string;
/** The `claim`s the poster sent itself. */
let claims: number;
/** The most posts that were on their way to the platform at once. */
let inFlight: { now: number; most: number };

beforeEach(async () => {
  clock = new FakeClock();
  const sqlite = createSqliteStore(openDatabase(':memory:'), clock);
  conversationId = await sqlite.conversations.ensure(ref);
  claims = 0;
  const outbox = sqlite.outbox;
  store = Object.assign(Object.create(outbox) as OutboxStore, {
    claim: (id: string) => {
      claims++;
      return outbox.claim(id);
    },
  });
  adapter = new MemoryAdapter();
  inFlight = { now: 0, most: 0 };
  const post = adapter.postMessage.bind(adapter);
  adapter.postMessage = async (...args) => {
    inFlight.most = Math.max(inFlight.most, ++inFlight.now);
    try {
      return await post(...args);
    } finally {
      inFlight.now--;
    }
  };
  poster = new OutboxPoster({
    store,
    adapters: new Map([['memory', adapter]]),
    refOf: () => ref,
    clock,
    logger: silentLogger(),
    onQuestionPosted: async () => undefined,
  });
  await poster.start();
});

const texts = () => adapter.posts.map((p) => p.text);
/** Rows recorded as a write would (not kicked). */
const add = (...lines: string[]) =>
  store.add(
    conversationId,
    null,
    'update',
    lines.map((text) => ({ text })),
  );
/** The claim the answer's write took, as the store answers a claim (the raw store's own, not counted). */
const wonClaim = () => Object.getPrototypeOf(store).claim(conversationId) as Promise<ClaimAttempt>;

describe('a worker started on a claim won ahead', () => {
  it('posts with the claim it is handed, sending no claim of its own, and gives it up when drained', async () => {
    const ahead = poster.claimAhead(conversationId);
    expect(ahead).not.toBeNull();
    const ids = await add('the answer');
    ahead!(await wonClaim(), ids);
    expect((await poster.settled(ids[0]!)).kind).toBe('posted');
    await poster.idle();
    expect(texts()).toEqual(['the answer']);
    expect(claims).toBe(0);
    // Given up: the next kick claims it again at once.
    const [next] = await add('next');
    poster.kick(conversationId, [next!]);
    await poster.idle();
    expect(texts()).toEqual(['the answer', 'next']);
    expect(claims).toBe(1);
  });

  it('posts the rows pending before the answer first, in order', async () => {
    await add('one', 'two');
    const ahead = poster.claimAhead(conversationId)!;
    const ids = await add('the answer');
    ahead(await wonClaim(), ids);
    await poster.idle();
    expect(texts()).toEqual(['one', 'two', 'the answer']);
  });

  it('starts no second worker: none ahead while a turn of this process runs there, and a kick during the write waits for the turn', async () => {
    let open!: () => void;
    adapter.postGate = new Promise<void>((resolve) => (open = resolve));
    const [first] = await add('first');
    poster.kick(conversationId, [first!]);
    await waitFor(() => claims === 1, 2_000, 'the turn to hold the claim');
    // A turn runs there and holds the claim: the write claims nothing, and its kick runs the conversation after it.
    expect(poster.claimAhead(conversationId)).toBeNull();
    const [second] = await add('second');
    poster.kick(conversationId, [second!]);
    open();
    await poster.idle();
    expect(texts()).toEqual(['first', 'second']);

    // Started ahead, then kicked while the write is on its way (another row recorded meanwhile): one turn at a time.
    adapter.postGate = new Promise<void>((resolve) => (open = resolve));
    const ahead = poster.claimAhead(conversationId)!;
    const [other] = await add('meanwhile');
    poster.kick(conversationId, [other!]);
    const ids = await add('the answer');
    ahead(await wonClaim(), ids);
    open();
    await poster.idle();
    expect(texts()).toEqual(['first', 'second', 'meanwhile', 'the answer']);
    expect(inFlight.most).toBe(1);
  });

  it('after a claim lost to another process, looks again when it lapses, as after a lost claim of its own', async () => {
    const ahead = poster.claimAhead(conversationId)!;
    const ids = await add('the answer');
    ahead({ kind: 'busy', until: clock.now() + 500 }, ids);
    await poster.idle();
    expect(texts()).toEqual([]);
    expect(claims).toBe(0);
    clock.advance(500);
    await waitFor(() => texts().length === 1, 2_000, 'the answer posted once the claim lapsed');
    await poster.idle();
    expect(texts()).toEqual(['the answer']);
    expect(claims).toBe(1);
  });

  it('ends without a turn when the write was refused, and the next kick claims as usual', async () => {
    const ahead = poster.claimAhead(conversationId)!;
    ahead(null);
    await poster.idle();
    expect(claims).toBe(0);
    const ids = await add('later');
    poster.kick(conversationId, ids);
    await poster.idle();
    expect(texts()).toEqual(['later']);
    expect(claims).toBe(1);
  });

  it('starts none once stopping, and works a claim handed during the stop by giving it up', async () => {
    const ahead = poster.claimAhead(conversationId)!;
    const ids = await add('the answer');
    const stopped = poster.stop(1_000);
    ahead(await wonClaim(), ids);
    await stopped;
    expect(texts()).toEqual([]);
    expect(poster.claimAhead(conversationId)).toBeNull();
    // Given up: another poster (a restart) claims it at once.
    expect((await wonClaim()).kind).toBe('claimed');
  });
});

import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/client.js';
import { closePostgres, openPostgres } from '../../src/db/pg-client.js';
import type { NewElicitation } from '../../src/run-records/elicitation-store.js';
import { createPostgresStore } from '../../src/composition/pg-store.js';
import { createSqliteStore } from '../../src/composition/sqlite-store.js';
import type { Store } from '../../src/store/store.js';
import { FakeClock } from '../fakes/fake-clock.js';
import { useTestDatabase } from '../support/test-database.js';

/*
 * The elicitation store's contract on both databases: a question is settled once (compare-and-swap, also between two
 * connections, as two processes would race), the holder finds what was settled elsewhere, and a carried-over answer is
 * taken for a re-issued call exactly once.
 */

const database = useTestDatabase();

interface Pair {
  store: Store;
  /** A second store on the same database (another process); SQLite: the same one, there is one process. */
  peer: Store;
  close(): Promise<void>;
}

const kinds: Record<string, () => Promise<Pair>> = {
  SQLite: async () => {
    const store = createSqliteStore(openDatabase(':memory:'), new FakeClock(), { ownsDb: true });
    return { store, peer: store, close: () => store.close() };
  },
  PostgreSQL: async () => {
    const [a, b] = await Promise.all([
      openPostgres(database.url, { poolSize: 2 }),
      openPostgres(database.url, { poolSize: 2 }),
    ]);
    await a.$client.query('truncate elicitations');
    return {
      store: createPostgresStore(a, new FakeClock()),
      peer: createPostgresStore(b, new FakeClock()),
      close: async () => void (await Promise.all([closePostgres(a), closePostgres(b)])),
    };
  },
};

const question = (id: string, over: Partial<NewElicitation> = {}): NewElicitation => ({
  id,
  runId: 'run-1',
  conversationId: 'conv-1',
  platform: 'slack',
  principal: 'U1',
  server: 'diner',
  tool: 'diner__pick_seating',
  request: {
    mode: 'form',
    message: 'Where?',
    requestedSchema: { type: 'object', properties: { seating: { type: 'string', enum: ['in', 'out'] } } },
  },
  fingerprint: 'fp-1',
  postText: '❓ Where?',
  askedAt: 1000,
  ...over,
});

const accepted = {
  state: 'answered' as const,
  answer: { action: 'accept', content: { seating: 'out' } },
  answeredBy: 'U1',
  outcome: '✅ Answered by <@U1>.',
};

describe.each(Object.keys(kinds).filter((k) => k === 'SQLite' || !database.skip))('elicitation store (%s)', (kind) => {
  it('keeps a question as asked (its request read back as JSON), its post, and settles it once, whichever connection comes first', async () => {
    const { store, peer, close } = await kinds[kind]!();
    try {
      await store.elicitations.add(question('q1'));
      await store.elicitations.setMessage('q1', '1700000000.000100');
      expect(await peer.elicitations.get('q1')).toMatchObject({
        state: 'waiting',
        messageId: '1700000000.000100',
        request: question('q1').request,
        carriedOver: false,
        answer: null,
      });
      expect(await store.elicitations.settledAmong(['q1'])).toEqual([]);

      const [first, second] = await Promise.all([
        peer.elicitations.settle('q1', accepted, 2000),
        store.elicitations.settle(
          'q1',
          { state: 'declined', answer: { action: 'decline' }, answeredBy: 'U1', outcome: 'no' },
          2000,
        ),
      ]);
      expect([first, second].filter(Boolean)).toHaveLength(1);
      const settled = (await store.elicitations.settledAmong(['q1', 'unknown']))[0]!;
      expect(settled.state).toBe(first ? 'answered' : 'declined');
      expect(settled.settledAt).toBe(2000);
      expect(await store.elicitations.settle('unknown', accepted, 2000)).toBe(false);
    } finally {
      await close();
    }
  });

  it("finds a run's newest question, and gives a carried-over answer to the re-issued call once, only for its fingerprint", async () => {
    const { store, peer, close } = await kinds[kind]!();
    try {
      await store.elicitations.add(question('old', { askedAt: 500 }));
      await store.elicitations.add(question('q2', { askedAt: 1500 }));
      expect((await store.elicitations.newestOf('run-1'))?.id).toBe('q2');
      expect(await store.elicitations.newestOf('run-2')).toBeNull();

      await store.elicitations.settle('q2', accepted, 2000);
      // Not carried over: an answer given while the call still waited is never replayed.
      expect(await store.elicitations.takeReplay('run-1', 'fp-1', 3000)).toBeNull();
      await store.elicitations.carryOver('q2');
      expect(await store.elicitations.takeReplay('run-1', 'another question', 3000)).toBeNull();
      expect(await store.elicitations.takeReplay('run-2', 'fp-1', 3000)).toBeNull();
      const taken = await Promise.all([
        store.elicitations.takeReplay('run-1', 'fp-1', 3000),
        peer.elicitations.takeReplay('run-1', 'fp-1', 3000),
      ]);
      expect(taken.filter((t) => t !== null).map((t) => [t!.id, t!.answer, t!.replayedAt])).toEqual([
        ['q2', accepted.answer, 3000],
      ]);
      expect(await store.elicitations.takeReplay('run-1', 'fp-1', 4000)).toBeNull();
    } finally {
      await close();
    }
  });

  it('lists the questions carried over a restart that still wait for a person on a platform, oldest first', async () => {
    const { store, peer, close } = await kinds[kind]!();
    try {
      await store.elicitations.add(question('late', { platform: 'console', principal: 'you', askedAt: 3000 }));
      await store.elicitations.add(question('early', { platform: 'console', principal: 'you', askedAt: 1000 }));
      await store.elicitations.add(question('live', { platform: 'console', principal: 'you', askedAt: 2000 }));
      await store.elicitations.add(question('slack', { askedAt: 500 }));
      await store.elicitations.add(question('done', { platform: 'console', principal: 'you', askedAt: 100 }));
      for (const id of ['late', 'early', 'slack', 'done']) await store.elicitations.carryOver(id);
      await store.elicitations.settle('done', accepted, 4000);
      // Not carried over ('live': its call still waits somewhere), another platform, or settled: not listed.
      expect((await peer.elicitations.carriedOverTo('console', 'you')).map((q) => q.id)).toEqual(['early', 'late']);
      expect(await peer.elicitations.carriedOverTo('console', 'someone else')).toEqual([]);
    } finally {
      await close();
    }
  });
});

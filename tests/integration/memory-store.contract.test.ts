import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { closeDatabase, openDatabase } from '../../src/db/client.js';
import { closePostgres, openPostgres } from '../../src/db/pg-client.js';
import type { MemoryStore, MemoryVisibility } from '../../src/memory/memory-store.js';
import { createPostgresStore } from '../../src/composition/pg-store.js';
import { createSqliteStore } from '../../src/composition/sqlite-store.js';
import { FakeClock } from '../fakes/fake-clock.js';
import { useTestDatabase } from '../support/test-database.js';

/** A fresh pair of memory stores on one empty database (`peer`: another process; SQLite's is the same store). */
type MemoryStoreFactory = () => Promise<{
  store: MemoryStore;
  peer: MemoryStore;
  clock: FakeClock;
  close(): Promise<void>;
}>;

const ana: MemoryVisibility = { person: 'slack:UANA', channel: 'slack:T1:C1', workspace: 'slack:T1' };
const bob: MemoryVisibility = { person: 'slack:UBOB', channel: 'slack:T1:C2', workspace: 'slack:T1' };
const elsewhere: MemoryVisibility = { person: 'slack:UANA', channel: 'slack:T2:C9', workspace: 'slack:T2' };

/** What compaction and long-term memory rely on from the memory store on any database. */
function memoryStoreContract(name: string, factory: MemoryStoreFactory): void {
  describe(`${name}: the memory store`, () => {
    it('writes a summary only on the version it read, so of two racing processes one wins', async () => {
      const { store, peer, close } = await factory();
      try {
        expect(await store.summary('c1')).toBeNull();
        const first = await Promise.all([
          store.saveSummary('c1', 0, 'first A', 10),
          peer.saveSummary('c1', 0, 'first B', 10),
        ]);
        expect(first.filter(Boolean)).toHaveLength(1);
        const row = (await peer.summary('c1'))!;
        expect(row).toMatchObject({ version: 1, throughMessageId: 10 });
        const second = await Promise.all([
          store.saveSummary('c1', 1, 'second A', 20),
          peer.saveSummary('c1', 1, 'second B', 20),
        ]);
        expect(second.filter(Boolean)).toHaveLength(1);
        expect(await store.saveSummary('c1', 1, 'stale', 30)).toBe(false);
        expect(await store.summary('c1')).toMatchObject({
          version: 2,
          throughMessageId: 20,
          summary: second[0] ? 'second A' : 'second B',
        });
        expect(await store.summary('c2')).toBeNull();
      } finally {
        await close();
      }
    });

    it('shows each scope only to its own subject, newest first', async () => {
      const { store, peer, close } = await factory();
      try {
        const mine = await store.remember({
          scope: 'me',
          subject: 'slack:UANA',
          text: 'Ana is on the payments team',
          createdBy: 'slack:UANA',
        });
        await store.remember({
          scope: 'me',
          subject: 'slack:UBOB',
          text: 'Bob prefers German',
          createdBy: 'slack:UBOB',
        });
        await store.remember({
          scope: 'channel',
          subject: 'slack:T1:C1',
          text: 'staging is https://staging.example',
          createdBy: 'slack:UANA',
        });
        await store.remember({
          scope: 'workspace',
          subject: 'slack:T1',
          text: 'the company is Acme',
          createdBy: 'slack:UADMIN',
        });
        expect((await peer.newest(ana, 10)).map((m) => m.text)).toEqual([
          'the company is Acme',
          'staging is https://staging.example',
          'Ana is on the payments team',
        ]);
        expect((await peer.newest(bob, 10)).map((m) => m.text)).toEqual(['the company is Acme', 'Bob prefers German']);
        expect((await peer.newest(elsewhere, 10)).map((m) => m.text)).toEqual(['Ana is on the payments team']);
        expect((await peer.newest({ ...ana, person: null }, 10)).map((m) => m.text)).toEqual([
          'the company is Acme',
          'staging is https://staging.example',
        ]);
        expect((await peer.newest(ana, 10, 'channel')).map((m) => m.text)).toEqual([
          'staging is https://staging.example',
        ]);
        expect(await peer.memory(mine.id)).toMatchObject({
          scope: 'me',
          subject: 'slack:UANA',
          createdBy: 'slack:UANA',
        });
        expect(await store.countBy('slack:UANA')).toBe(2);
      } finally {
        await close();
      }
    });

    it('searches by full text within what the visibility allows, best match first, and forgets at once', async () => {
      const { store, peer, close } = await factory();
      try {
        await store.remember({
          scope: 'me',
          subject: 'slack:UANA',
          text: 'Ana deploys on Tuesdays',
          createdBy: 'slack:UANA',
        });
        const payments = await store.remember({
          scope: 'me',
          subject: 'slack:UANA',
          text: 'Ana works on payments; payments reviews go to Carl',
          createdBy: 'slack:UANA',
        });
        await store.remember({
          scope: 'me',
          subject: 'slack:UBOB',
          text: 'Bob also works on payments',
          createdBy: 'slack:UBOB',
        });
        await store.remember({
          scope: 'channel',
          subject: 'slack:T1:C1',
          text: 'the payments runbook is in Notion',
          createdBy: 'slack:UANA',
        });
        const found = await peer.search(ana, 'Who reviews PAYMENTS changes?', 10);
        expect(found.map((m) => m.text)).toContain('Ana works on payments; payments reviews go to Carl');
        expect(found.map((m) => m.text)).toContain('the payments runbook is in Notion');
        expect(found.map((m) => m.text)).not.toContain('Bob also works on payments');
        expect(found[0]!.id).toBe(payments.id);
        expect(await peer.search(ana, 'payments', 10, 'channel')).toHaveLength(1);
        expect(await peer.search(ana, '"); drop table memories; --', 10)).toEqual([]);
        expect(await peer.search(ana, '  ', 10)).toEqual([]);
        expect(await store.forget(payments.id)).toBe(true);
        expect(await store.forget(payments.id)).toBe(false);
        expect((await peer.search(ana, 'payments', 10)).map((m) => m.text)).toEqual([
          'the payments runbook is in Notion',
        ]);
        expect(await peer.memory(payments.id)).toBeNull();
      } finally {
        await close();
      }
    });

    it('knows no memory by an id past what an id can be (PostgreSQL integer): no overflow, just none', async () => {
      const { store, close } = await factory();
      try {
        for (const id of [2 ** 31, 99_999_999_999, Number.MAX_SAFE_INTEGER]) {
          expect(await store.memory(id)).toBeNull();
          expect(await store.forget(id)).toBe(false);
        }
      } finally {
        await close();
      }
    });

    it('shows no workspace memory where there is no workspace (a Discord DM belongs to no server)', async () => {
      const { store, peer, close } = await factory();
      try {
        await store.remember({
          scope: 'workspace',
          subject: 'discord:@me',
          text: 'written by an older version in a DM',
          createdBy: 'discord:1',
        });
        await store.remember({
          scope: 'channel',
          subject: 'discord:@me:42',
          text: 'this DM only',
          createdBy: 'discord:1',
        });
        const dm: MemoryVisibility = { person: 'discord:1', channel: 'discord:@me:42', workspace: null };
        expect((await peer.newest(dm, 10)).map((m) => m.text)).toEqual(['this DM only']);
        expect(await peer.newest(dm, 10, 'workspace')).toEqual([]);
        expect(await peer.search(dm, 'written DM', 10)).toHaveLength(1);
      } finally {
        await close();
      }
    });
  });
}

memoryStoreContract('SQLite', async () => {
  const clock = new FakeClock();
  const db = openDatabase(':memory:');
  const store = createSqliteStore(db, clock);
  return { store: store.memory, peer: store.memory, clock, close: async () => closeDatabase(db) };
});

describe('SQLite: memories over a restart', () => {
  it('finds what an earlier process remembered, though it reads nothing for owners with no memories', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'errand-memory-'));
    const clock = new FakeClock();
    try {
      const first = openDatabase(join(dir, 'errand.db'));
      const before = createSqliteStore(first, clock).memory;
      expect(await before.newest(ana, 10)).toEqual([]);
      await before.remember({
        scope: 'me',
        subject: ana.person!,
        text: 'prefers the metric system',
        createdBy: ana.person!,
      });
      expect((await before.newest(ana, 10)).map((m) => m.text)).toEqual(['prefers the metric system']);
      closeDatabase(first);

      const again = openDatabase(join(dir, 'errand.db'));
      try {
        const after = createSqliteStore(again, clock).memory;
        expect((await after.newest(ana, 10)).map((m) => m.text)).toEqual(['prefers the metric system']);
        expect((await after.search(ana, 'which system of units', 5)).map((m) => m.text)).toEqual([
          'prefers the metric system',
        ]);
        expect(await after.newest(bob, 10)).toEqual([]);
        await after.remember({
          scope: 'channel',
          subject: bob.channel,
          text: 'deploys on Fridays are frozen',
          createdBy: bob.person!,
        });
        expect((await after.search(bob, 'deploys', 5)).map((m) => m.text)).toEqual(['deploys on Fridays are frozen']);
      } finally {
        closeDatabase(again);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

const database = useTestDatabase();
describe.skipIf(database.skip)('PostgreSQL', () => {
  memoryStoreContract('PostgreSQL', async () => {
    const clock = new FakeClock();
    const [a, b] = await Promise.all([
      openPostgres(database.url, { poolSize: 2 }),
      openPostgres(database.url, { poolSize: 2 }),
    ]);
    await a.$client.query('truncate conversation_summaries, memories');
    return {
      store: createPostgresStore(a, clock).memory,
      peer: createPostgresStore(b, clock).memory,
      clock,
      close: async () => {
        await Promise.all([closePostgres(a), closePostgres(b)]);
      },
    };
  });
});
